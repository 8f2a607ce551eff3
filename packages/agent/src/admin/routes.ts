// The host's admin API: PUT /agents/{name} (create or replace), DELETE /agents/{name}, GET
// /agents (in name order, a page at a time), GET /troubles (the agents that are not well). Guarded by the host's own admin token, never by an agent's gateway token.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { AgentError } from '../errors.js';
import type { AgentConfigBody } from './agent-config.js';
import type { ChannelConfig } from '../channels/channel.js';
import { guardWith } from './scope.js';

// The configuration's TypeBox schemas and their compiled checks load with the first call that
// needs them: an empty host never carries TypeBox, and Fastify's own validator (Ajv) is never
// loaded because no route of the agent declares a schema (runtime/server.ts).
type Checks = typeof import('./agent-config.js');
let checks: Promise<Checks> | undefined;
const loadChecks = () => (checks ??= import('./agent-config.js'));

const invalid = (message: string) => new AgentError('INVALID_REQUEST', `Invalid request: ${message}`);

type Params = { name: string };

/** The most agents one GET /agents answers with, and its default. */
export const AGENT_PAGE_MAX = 1000;

/**
 * `after` (a name, exclusive) and `limit` (1–AGENT_PAGE_MAX) of GET /agents; anything else is a 400.
 * Neither given: every agent, as GET /agents answered before it paged (a control plane of the
 * version before, during a rolling upgrade, and operators' scripts read the whole list).
 */
function listPage(query: Record<string, unknown>): { after?: string; limit: number } {
  const { after, limit } = query;
  if (after !== undefined && (typeof after !== 'string' || after.length > 200))
    throw invalid('after must be one agent name (at most 200 characters).');
  if (limit === undefined) return { after, limit: after === undefined ? Number.POSITIVE_INFINITY : AGENT_PAGE_MAX };
  const n = typeof limit === 'string' && /^[0-9]{1,7}$/.test(limit) ? Number(limit) : Number.NaN;
  if (!(n >= 1 && n <= AGENT_PAGE_MAX)) throw invalid(`limit must be a whole number from 1 to ${AGENT_PAGE_MAX}.`);
  return { after, limit: n };
}

/** One agent as the admin API shows it. */
interface AgentView {
  config: { name: string };
  health(): object;
  /** What keeps it from its users while it runs (Telegram's refusal, a rejected model key), if anything. */
  trouble(): string | undefined;
}

/**
 * What the admin API needs of the host (runtime/host.ts implements it). admin/ never imports
 * runtime/ (.dependency-cruiser.cjs): the runtime composes, the rooms it composes do not reach back.
 */
export interface AgentDirectory {
  put(
    config: { name: string; allowPrivateFetch?: boolean; allowInsecureMcp?: boolean } & Omit<
      AgentConfigBody,
      'telegram' | 'channels'
    > & {
        channels: ChannelConfig[];
      },
  ): Promise<AgentView>;
  remove(name: string, opts: { purge?: boolean }): Promise<boolean>;
  /** Up to `limit` names after `after` (exclusive) in name order, and whether more follow. */
  namesAfter(after: string | undefined, limit: number): { names: string[]; more: boolean };
  get(name: string): AgentView | undefined;
  /** Every agent, in no order. */
  all(): Iterable<AgentView>;
  readonly size: number;
}

/** The host's own options for the agents it runs (main.ts reads them from its config). */
export interface HostAgentOptions {
  allowPrivateFetch?: boolean;
  allowInsecureMcp?: boolean;
  defaultTelegramApiRoot?: string;
  /** The host's WHATSAPP_API_ROOT, for WhatsApp entries without their own. */
  defaultWhatsAppApiRoot?: string;
  /** The host's DISCORD_API_ROOT and DISCORD_GATEWAY_URL, for Discord entries without their own. */
  defaultDiscord?: { apiRoot?: string; gatewayUrl?: string };
  telegramStreaming?: boolean;
  telegramLongPoll?: { timeoutS: number };
  /** TELEGRAM_BURST_MS: the bots' quiet time when their owner set none. */
  telegramBurstMs?: number;
}

export function adminRoutes(
  app: FastifyInstance,
  host: AgentDirectory,
  adminToken: string,
  opts: HostAgentOptions = {},
) {
  const guard = guardWith(() => adminToken, 'host admin token');

  app.put<{ Params: Params }>('/agents/:name', { onRequest: guard }, async (req) => {
    const { checkAgentName, checkAgentConfig } = await loadChecks();
    const badName = checkAgentName(req.params);
    if (badName) throw invalid(badName);
    const checked = checkAgentConfig(req.body);
    if (!checked.ok) throw invalid(checked.message);
    const { telegram, channels = [], ...body } = checked.body;
    // The older control plane's `telegram` is the same entry as a `{ type: "telegram" }` of channels.
    const entries = [...(telegram ? [{ type: 'telegram' as const, ...telegram }] : []), ...channels];
    const types = entries.map((c) => c.type);
    const twice = types.find((t, i) => types.indexOf(t) !== i);
    // Two entries of one type would be two pollers of one bot, each taking the other's updates.
    if (twice) throw invalid(`body/channels has two "${twice}" channels; an assistant has at most one of each.`);
    const agent = await host.put({
      name: req.params.name,
      ...body,
      // The host's own options for its Telegram bots: the operator's Bot API root, previews, the long poll.
      channels: entries.map((c) =>
        c.type === 'telegram'
          ? {
              ...c,
              apiRoot: c.apiRoot ?? opts.defaultTelegramApiRoot,
              stream: opts.telegramStreaming,
              longPoll: opts.telegramLongPoll,
              burstMs: opts.telegramBurstMs,
            }
          : c.type === 'whatsapp' && !c.apiRoot && opts.defaultWhatsAppApiRoot
            ? { ...c, apiRoot: opts.defaultWhatsAppApiRoot }
            : c.type === 'discord'
              ? { ...opts.defaultDiscord, ...c }
              : c,
      ),
      allowPrivateFetch: opts.allowPrivateFetch,
      allowInsecureMcp: opts.allowInsecureMcp,
    });
    return { name: agent.config.name, health: agent.health() };
  });

  app.delete<{ Params: Params; Querystring: { purge?: string } }>(
    '/agents/:name',
    { onRequest: guard },
    async (req) => {
      const badName = (await loadChecks()).checkAgentName(req.params);
      if (badName) throw invalid(badName);
      const removed = await host.remove(req.params.name, { purge: req.query.purge === 'true' });
      if (!removed) throw new AgentError('NOT_FOUND', `No agent named "${req.params.name}".`);
      return { removed: true };
    },
  );

  // A page at a time, in name order: 100,000 agents in one answer (4.4 MB) cost the control plane a
  // 7–33 ms parse on its event loop (issue 30). `next` is the last name, present when more follow.
  app.get<{ Querystring: Record<string, unknown> }>('/agents', { onRequest: guard }, async (req) => {
    const { after, limit } = listPage(req.query);
    const { names, more } = host.namesAfter(after, limit);
    return {
      agents: names.map((name) => host.get(name)!.health()),
      ...(more ? { next: names[names.length - 1] } : {}),
    };
  });

  // What an operator (and bench:density) needs to judge the host: memory and event-loop delay.
  // The monitor is a timer firing every RESOLUTION_MS for the host's life: at 5 ms it cost 0.85 %
  // of a core in a bare node (10 ms: 0.45 %), most of an empty host's idle CPU. Its samples fall at
  // random moments either way, so percentiles keep their meaning with half as many.
  const RESOLUTION_MS = 10;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  app.addHook('onClose', async () => delay.disable());
  // The agents with a trouble and its words, for the control plane's health watch: a short list
  // read every few seconds, where the whole GET /agents is 100,000 health objects (issue 57).
  app.get('/troubles', { onRequest: guard }, async () => {
    const troubles: Array<{ name: string; reason: string }> = [];
    for (const agent of host.all()) {
      const reason = agent.trouble();
      if (reason) troubles.push({ name: agent.config.name, reason });
    }
    return { troubles };
  });

  app.get('/stats', { onRequest: guard }, async (req) => {
    const mem = process.memoryUsage();
    // The histogram holds whole sampling intervals; lateness is what exceeds the interval.
    const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
    const body = {
      agents: host.size,
      rss: mem.rss,
      heapUsed: mem.heapUsed,
      heapTotal: mem.heapTotal,
      external: mem.external,
      eventLoopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
    };
    if ((req.query as { reset?: string }).reset === 'true') delay.reset();
    return body;
  });
}
