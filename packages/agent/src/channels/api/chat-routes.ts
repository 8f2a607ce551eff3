// POST /v1/chat/completions, GET /v1/models and GET /health of one agent. Serve mode mounts them
// at the root, host mode under /agents/{name}; `resolve` finds the agent for a request.
import { filesMarkdown } from './markdown-files.js';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
// The OpenAI-compatible surface is a channel too: it turns a chat body into an InboundMessage and
// respond()'s events into a completion or an SSE stream.
import { AgentError } from '../../errors.js';
import { providerFailure, providerRenewal, providerRetryHeaders, type TurnEvent } from '../../core/events.js';
import { apiSession } from '../../core/inbound.js';
import type { ChatAgent } from './chat-agent.js';
import { passThroughParams } from './params.js';
import { sessionRoutes } from './session-routes.js';
import { errorEvent, toolProgressEvent } from '@berth/contracts/chat/events';
import { writeSse } from '@berth/contracts/sse/write';
import { bearerMatches } from '@berth/contracts/bearer';
import { resolveImages } from '../../media/fetch-image.js';
import { SETTINGS_PREVIEW_FIELD } from '@berth/contracts/settings/preview';

export const KEEPALIVE_MS = 15_000;

// The chat-body checks (TypeBox and its compiler, about 15 MB resident) load with the first chat
// request: an empty host, and one whose agents only talk to Telegram, never carry them.
type BodyChecks = typeof import('@berth/contracts/chat/body');
let bodyChecks: Promise<BodyChecks> | undefined;
const loadBodyChecks = () => (bodyChecks ??= import('@berth/contracts/chat/body'));

type Resolve = (req: FastifyRequest) => ChatAgent;

function toAgentError(err: unknown): AgentError {
  if (err instanceof AgentError) return err;
  const kind = providerFailure(err);
  if (kind && err instanceof Error) {
    // The provider's own retry information goes with it: a client must not guess when to retry.
    if (kind === 'rate_limit') return new AgentError('RATE_LIMITED', err.message, undefined, providerRetryHeaders(err));
    if (kind === 'credits') return creditsExhausted(err);
    if (kind === 'bad_request') return new AgentError('INVALID_REQUEST', err.message);
    return new AgentError('BAD_GATEWAY', err.message);
  }
  return new AgentError('INTERNAL_ERROR', 'The assistant failed while answering; try again.');
}

/**
 * Credits that ran out inside a turn answer as the control plane's own refusal does: 429 with
 * details.renewsAt, Retry-After and x-should-retry: false, so the stock SDKs do not retry it.
 */
function creditsExhausted(err: Error): AgentError {
  const renewal = providerRenewal(err);
  const renewsAt = renewal?.renewsAt;
  const retryAfter =
    renewal?.retryAfter ??
    (renewsAt ? String(Math.max(1, Math.ceil((Date.parse(renewsAt) - Date.now()) / 1000))) : '3600');
  return new AgentError('CREDITS_EXHAUSTED', err.message, renewsAt ? { renewsAt } : undefined, {
    'retry-after': retryAfter,
    'x-should-retry': 'false',
  });
}

/** How long a stream waits for the turn's first event before sending its headers. */
const FIRST_EVENT_WAIT_MS = 2000;

export function chatRoutes(
  app: FastifyInstance,
  prefix: string,
  resolve: Resolve,
  keepaliveMs = KEEPALIVE_MS,
  adminToken?: string,
) {
  const authed = (req: FastifyRequest): ChatAgent => {
    const agent = resolve(req);
    if (!bearerMatches(req.headers.authorization, agent.config.gatewayToken)) {
      throw new AgentError('UNAUTHORIZED', 'Send the gateway token as "Authorization: Bearer <token>".');
    }
    return agent;
  };

  // Probes get readiness and why not; the bot's username, the model and the agent's name only go
  // to whoever holds the agent's gateway token or the host's admin token.
  app.get(`${prefix}/health`, async (req, reply) => {
    const agent = resolve(req);
    const h = agent.health();
    const auth = req.headers.authorization;
    const full = bearerMatches(auth, agent.config.gatewayToken) || (!!adminToken && bearerMatches(auth, adminToken));
    return reply.status(h.ready ? 200 : 503).send(full ? h : { ready: h.ready, status: h.status, reason: h.reason });
  });

  // A transcript is read (or forgotten) by the control plane through the host's admin API
  // (WorkersPort.assistantCall, the host's admin token), or with the gateway token in serve mode.
  sessionRoutes(app, prefix, (req) => {
    if (adminToken && bearerMatches(req.headers.authorization, adminToken)) return resolve(req);
    return authed(req);
  });

  app.get(`${prefix}/v1/models`, async (req) => {
    const agent = authed(req);
    return {
      object: 'list',
      data: [{ id: 'assistant-agent', object: 'model', owned_by: agent.config.model.provider, created: 0 }],
    };
  });

  app.post(`${prefix}/v1/chat/completions`, async (req, reply) => {
    const agent = authed(req);
    const { checkChatBody, checkSessionId } = await loadBodyChecks();
    const session = checkSessionId(req.headers['x-assistant-session-id']);
    if (!session.ok) throw new AgentError('INVALID_REQUEST', session.message);
    const checked = checkChatBody(req.body, { vision: agent.vision });
    if (!checked.ok) throw new AgentError('INVALID_REQUEST', checked.message);
    const body = checked.body;
    const settings = await previewSettings(body);
    if (session.id && !body.messages.some((m) => m.role === 'user')) {
      throw new AgentError(
        'INVALID_REQUEST',
        'With X-Assistant-Session-Id, send the new user turn as a "user" message.',
      );
    }
    if (session.id) {
      const userTurn = [...body.messages].reverse().find((m) => m.role === 'user');
      agent.conversation.admitSession(
        apiSession(session.id),
        typeof userTurn?.content === 'string' ? userTurn.content : '',
      );
      reply.header('x-assistant-session-id', session.id);
    }
    const abort = new AbortController();
    // A client that goes away cancels the turn, and with it the provider request.
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    // https images are fetched (public addresses only) before the turn: a bad one is a 400, not a stream error.
    const messages = await resolveImages(body.messages, {
      allowPrivate: agent.config.allowPrivateFetch,
      signal: abort.signal,
    });
    const userTurn = [...messages].reverse().find((m) => m.role === 'user');
    // OpenAI's `user` names the end user (DESIGN §7.4): their memory, in the API's own namespace.
    const user = endUserId(body);
    const sender = { ...(user ? { sender: { id: user } } : {}), ...(settings ? { settings } : {}) };
    const events = agent.conversation.respond(
      session.id === undefined
        ? {
            ...sender,
            chat: { id: 'api', type: 'api' },
            text: userTurn?.content ?? '',
            mentioned: true,
            transcript: messages,
            params: passThroughParams(body),
          }
        : {
            ...sender,
            chat: { id: 'api', type: 'api' },
            session: apiSession(session.id),
            text: userTurn!.content,
            ...(userTurn!.images ? { images: userTurn!.images } : {}),
            mentioned: true,
            system: body.messages.filter((m) => m.role === 'system').map((m) => m.content),
            params: passThroughParams(body),
          },
      abort.signal,
    );
    const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    return body.stream ? streamTurn(reply, events, id, created, abort, keepaliveMs) : completeTurn(events, id, created);
  });
}

/**
 * The owner's unsaved settings for this turn (the dashboard's preview), checked with the same
 * schema as a saved version. Only the control plane reaches this route (gateway token), and it
 * forwards the field only from the owner's dashboard session.
 */
async function previewSettings(body: object) {
  if (!Object.hasOwn(body, SETTINGS_PREVIEW_FIELD)) return undefined;
  // The schema's check loads with the first preview, like the chat-body checks.
  const { checkSettings } = await import('@berth/contracts/settings');
  const res = checkSettings((body as Record<string, unknown>)[SETTINGS_PREVIEW_FIELD]);
  if (!res.ok) throw new AgentError('INVALID_REQUEST', `The settings to preview are not valid: ${res.message}`);
  return res.settings;
}

/** The body's `user`, bounded like an id (memory rows are keyed by it). */
function endUserId(body: object): string | undefined {
  const raw = (body as { user?: unknown }).user;
  const user = typeof raw === 'string' ? raw.trim() : '';
  return user && user.length <= 256 ? user : undefined;
}

async function completeTurn(events: AsyncGenerator<TurnEvent>, id: string, created: number) {
  try {
    for await (const ev of events) {
      if (ev.type === 'error') throw ev.error;
      if (ev.type === 'done') {
        return {
          id,
          object: 'chat.completion',
          created,
          model: 'assistant-agent',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: ev.content + filesMarkdown(ev.files) },
              finish_reason: ev.finishReason,
            },
          ],
          usage: ev.usage,
        };
      }
    }
  } catch (err) {
    throw toAgentError(err);
  }
  throw new AgentError('INTERNAL_ERROR', 'The turn ended without an answer.');
}

async function streamTurn(
  reply: FastifyReply,
  events: AsyncGenerator<TurnEvent>,
  id: string,
  created: number,
  abort: AbortController,
  keepaliveMs: number,
) {
  // A turn refused at once (the allowance is spent, the provider rate-limits) answers with its status
  // and headers, like the control plane's refusal before the stream (clients must see Retry-After
  // and x-should-retry): the turn's first event is awaited a moment before anything is sent.
  const first = events.next();
  const early = await Promise.race([
    // respond() reports a failure as its last event (`error`); a throw is caught the same way.
    first.then(
      (r) => (!r.done && r.value.type === 'error' ? { err: r.value.error as unknown } : undefined),
      (err: unknown) => ({ err }),
    ),
    new Promise<undefined>((r) => setTimeout(() => r(undefined), Math.min(FIRST_EVENT_WAIT_MS, keepaliveMs)).unref()),
  ]);
  // The provider's rate limit too: its Retry-After can only travel as a header. Other failures keep
  // the stream's shape: headers, then the error event.
  const refusal = early ? providerFailure(early.err) : undefined;
  if (early && (refusal === 'credits' || refusal === 'rate_limit')) throw toAgentError(early.err);
  // Then headers and the role chunk go out: a slow model must not look like a dead connection to
  // the client or to a proxy with an idle timeout. Keepalive comments fill the wait; a failure
  // from here on is an `event: error` in the error envelope.
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  let lastWrite = Date.now();
  const write = (text: string) => {
    lastWrite = Date.now();
    return writeSse(raw, text, abort.signal);
  };
  const head = { id, created, model: 'assistant-agent' };
  const chunk = (delta: object, finish: string | null = null, extra: object = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: 'assistant-agent', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  const keepalive = setInterval(
    () => {
      if (Date.now() - lastWrite >= keepaliveMs && !raw.destroyed) {
        lastWrite = Date.now();
        raw.write(': keepalive\n\n');
      }
    },
    Math.min(keepaliveMs, 1000),
  );
  try {
    await write(chunk({ role: 'assistant', content: '' }));
    const rest = (async function* () {
      const r = await first;
      if (r.done) return;
      yield r.value;
      yield* { [Symbol.asyncIterator]: () => events };
    })();
    for await (const ev of rest) {
      if (abort.signal.aborted) break;
      if (ev.type === 'error') throw ev.error;
      if (ev.type === 'delta') await write(chunk({ content: ev.content }));
      else if (ev.type === 'tool') await write(toolProgressEvent(head, ev));
      else {
        // DESIGN §9.5: pictures and files the tools made follow the words as Markdown.
        const files = filesMarkdown(ev.files);
        if (files) await write(chunk({ content: files }));
        await write(chunk({}, ev.finishReason, { usage: ev.usage }));
      }
    }
    if (!abort.signal.aborted) await write('data: [DONE]\n\n');
  } catch (err) {
    if (!abort.signal.aborted && !raw.destroyed) raw.write(errorEvent(toAgentError(err).toJSON().error));
  } finally {
    clearInterval(keepalive);
    if (!raw.destroyed) raw.end();
    await events.return(undefined).catch(() => {});
  }
}
