// An assistant's channels beside Telegram (DESIGN §9.1), pushed whole by the control plane when
// the owner sets or removes one, applied live without touching its Telegram bot:
//   host mode:  PUT /agents/{name}/channels   (the host's admin token)
//   serve mode: PUT /channels                 (the assistant's gateway token)
// Body: the worker spec's channel entries (@berth/contracts/worker), Telegram's excluded (its bot
// is the spec's own and changes only with PUT /agents/{name}). 404 for a name the host does not run.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AgentError } from '../errors.js';
import type { ChannelConfig } from '../channels/channel.js';
import { guardWith } from './scope.js';

/** One running assistant as these routes need it (runtime/assistant.ts implements it). */
export interface ChannelsTarget {
  readonly config: { name: string; gatewayToken: string };
  useChannels(entries: ChannelConfig[]): Promise<void>;
  health(): object;
}

export interface ChannelsDirectory {
  applyChannels(name: string, entries: ChannelConfig[]): Promise<ChannelsTarget | undefined>;
}

type Check = { Check(v: unknown): boolean; Errors(v: unknown): Iterable<{ instancePath: string; message: string }> };
let compiled: Check | undefined;

/** The entries when they are the spec's, at most one of each type and no Telegram; else a 400. */
export async function parseChannels(body: unknown): Promise<ChannelConfig[]> {
  if (!compiled) {
    const [{ Compile }, { Type }, { ChannelSpec }] = await Promise.all([
      import('typebox/compile'),
      import('typebox'),
      import('@berth/contracts/worker'),
    ]);
    compiled = Compile(Type.Array(ChannelSpec, { maxItems: 8 })) as Check;
  }
  if (!compiled.Check(body)) {
    const first = [...compiled.Errors(body)].slice(0, 3);
    throw new AgentError(
      'INVALID_REQUEST',
      `Invalid channel list: ${first.map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ')}`,
    );
  }
  const list = body as ChannelConfig[];
  if (list.some((c) => c.type === 'telegram'))
    throw new AgentError('INVALID_REQUEST', 'The Telegram bot is set with PUT /agents/{name}, not here.');
  if (new Set(list.map((c) => c.type)).size !== list.length)
    throw new AgentError('INVALID_REQUEST', 'Two channels of one type; an assistant has at most one of each.');
  return list;
}

/** The host's own roots for its channels (WHATSAPP_API_ROOT, DISCORD_API_ROOT, DISCORD_GATEWAY_URL). */
export interface ChannelDefaults {
  whatsappApiRoot?: string;
  discord?: { apiRoot?: string; gatewayUrl?: string };
}

/** The host's own defaults for an entry, as PUT /agents/{name} adds them; the entry's own win. */
export const withHostDefaults = (list: ChannelConfig[], defaults: ChannelDefaults) =>
  list.map((c) =>
    c.type === 'whatsapp' && defaults.whatsappApiRoot && !(c as { apiRoot?: string }).apiRoot
      ? { ...c, apiRoot: defaults.whatsappApiRoot }
      : c.type === 'discord'
        ? { ...defaults.discord, ...c }
        : c,
  );

export function hostChannelRoutes(
  app: FastifyInstance,
  host: ChannelsDirectory,
  adminToken: string,
  defaults: ChannelDefaults,
) {
  const onRequest = guardWith(() => adminToken, 'host admin token');
  app.put<{ Params: { name: string } }>('/agents/:name/channels', { onRequest }, async (req) => {
    const list = withHostDefaults(await parseChannels(req.body), defaults);
    const agent = await host.applyChannels(req.params.name, list);
    if (!agent) throw new AgentError('NOT_FOUND', `No agent named "${req.params.name}".`);
    return { applied: true, health: agent.health() };
  });
}

export function serveChannelRoutes(app: FastifyInstance, agent: ChannelsTarget, defaults: ChannelDefaults) {
  const onRequest = guardWith(() => agent.config.gatewayToken, 'gateway token');
  app.put('/channels', { onRequest }, async (req: FastifyRequest) => {
    await agent.useChannels(withHostDefaults(await parseChannels(req.body), defaults));
    return { applied: true, health: agent.health() };
  });
}
