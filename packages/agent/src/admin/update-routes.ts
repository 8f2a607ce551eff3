// Webhook updates the control plane's ingress accepted (DESIGN §9.1), handed to one assistant's
// channel by type:
//   host mode:  POST /agents/{name}/updates  (admin token)
//   serve mode: POST /updates                (gateway token)
// Body: { channel, channelId, updateKey, update }. The control plane delivers at least once (it
// retries until it hears 200), so a key already taken is answered 200 again and not handled twice.
// 200 means taken: the turn runs after the answer, as a polled update's does.
import type { FastifyInstance } from 'fastify';
import { AgentError } from '../errors.js';
import { type AssistantScope, hostScope, serveScope } from './scope.js';

/** What the assistant did with an update: its channel took it, or it has no such channel (yet). */
export type UpdateOutcome = 'taken' | 'no_channel' | 'not_ready';

/** One running assistant as these routes need it (runtime/assistant.ts implements it). */
export interface UpdateTarget {
  readonly config: { name: string; gatewayToken: string };
  acceptUpdate(channel: string, update: unknown): UpdateOutcome;
}

export interface UpdateDirectory {
  get(name: string): UpdateTarget | undefined;
}

/** Keys remembered per host: far more than one delivery's retries span (about an hour of updates). */
const REMEMBERED = 20_000;

/** Update keys already taken, oldest first (a Set keeps insertion order): bounded memory. */
export class TakenUpdates {
  private readonly keys = new Set<string>();
  constructor(private readonly max = REMEMBERED) {}
  has(key: string) {
    return this.keys.has(key);
  }
  add(key: string) {
    this.keys.add(key);
    if (this.keys.size > this.max) this.keys.delete(this.keys.values().next().value!);
  }
}

interface UpdateBody {
  channel: string;
  channelId: string;
  updateKey: string;
  update: unknown;
}

function parse(body: unknown): UpdateBody {
  const b = body as Partial<UpdateBody> | undefined;
  if (
    typeof b?.channel !== 'string' ||
    typeof b.channelId !== 'string' ||
    typeof b.updateKey !== 'string' ||
    typeof b.update !== 'object' ||
    b.update === null
  )
    throw new AgentError('INVALID_REQUEST', 'Invalid request: expected { channel, channelId, updateKey, update }.');
  return b as UpdateBody;
}

function routes(
  app: FastifyInstance,
  { prefix, onRequest, assistant }: AssistantScope<UpdateTarget>,
  taken: TakenUpdates,
) {
  app.post(`${prefix}/updates`, { onRequest }, async (req) => {
    const a = assistant(req);
    const u = parse(req.body);
    const key = `${a.config.name}\n${u.channel}\n${u.channelId}\n${u.updateKey}`;
    if (taken.has(key)) return { data: { taken: true, repeated: true } };
    const outcome = a.acceptUpdate(u.channel, u.update);
    // Both are passing: the channel is starting, or its credentials are being applied.
    if (outcome === 'not_ready')
      throw new AgentError('ASSISTANT_NOT_READY', `The ${u.channel} channel is not connected yet; try again shortly.`);
    if (outcome === 'no_channel')
      throw new AgentError('ASSISTANT_NOT_READY', `This assistant runs no ${u.channel} channel (yet).`);
    taken.add(key);
    return { data: { taken: true, repeated: false } };
  });
}

export function hostUpdateRoutes(app: FastifyInstance, host: UpdateDirectory, adminToken: string) {
  routes(app, hostScope(host, adminToken), new TakenUpdates());
}

export function serveUpdateRoutes(app: FastifyInstance, agent: UpdateTarget) {
  routes(app, serveScope(agent), new TakenUpdates());
}
