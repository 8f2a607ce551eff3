// One channel of a running assistant attached, replaced or removed live (DESIGN §9.1: applied
// within 5 s without restarting its other channels), host mode:
//   PUT    /agents/{name}/channels/{type}   body: that channel's entry of the worker spec
//   DELETE /agents/{name}/channels/{type}
// (the host's admin token). Telegram's bot is the spec's own and changes only with PUT
// /agents/{name}. 404 for a name the host does not run: a push never creates an assistant.
import type { FastifyInstance } from 'fastify';
import type { ChannelConfig } from '../channels/channel.js';
import { AgentError } from '../errors.js';
import { guardWith } from './settings-routes.js';

interface ChannelHost {
  applyChannel(name: string, type: string, config: ChannelConfig | undefined): Promise<boolean>;
}

type Params = { name: string; type: string };

let compiled: { Check(v: unknown): boolean; Errors(v: unknown): Iterable<{ instancePath: string; message: string }> };

async function checkEntry(type: string, body: unknown): Promise<ChannelConfig> {
  const [{ Compile }, { ChannelSpec }] = await Promise.all([
    import('typebox/compile'),
    import('@berth/contracts/worker'),
  ]);
  if (!compiled) compiled = Compile(ChannelSpec);
  if (!compiled.Check(body)) {
    const first = [...compiled.Errors(body)].slice(0, 3);
    throw new AgentError(
      'INVALID_REQUEST',
      `Invalid channel: ${first.map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ')}`,
    );
  }
  if ((body as ChannelConfig).type !== type)
    throw new AgentError('INVALID_REQUEST', `The body is a "${(body as ChannelConfig).type}" channel, not "${type}".`);
  return body as ChannelConfig;
}

export function hostChannelRoutes(
  app: FastifyInstance,
  host: ChannelHost,
  adminToken: string,
  defaults: { discord?: { apiRoot?: string; gatewayUrl?: string } } = {},
) {
  const onRequest = guardWith(() => adminToken, 'host admin token');
  const refuseTelegram = (type: string) => {
    if (type === 'telegram')
      throw new AgentError('INVALID_REQUEST', "Telegram's bot changes with PUT /agents/{name}, not here.");
  };
  const apply = async (p: Params, config: ChannelConfig | undefined) => {
    if (!(await host.applyChannel(p.name, p.type, config)))
      throw new AgentError('NOT_FOUND', `No agent named "${p.name}".`);
  };
  app.put<{ Params: Params }>('/agents/:name/channels/:type', { onRequest }, async (req) => {
    refuseTelegram(req.params.type);
    const entry = await checkEntry(req.params.type, req.body);
    await apply(req.params, entry.type === 'discord' ? { ...defaults.discord, ...entry } : entry);
    return { applied: true };
  });
  app.delete<{ Params: Params }>('/agents/:name/channels/:type', { onRequest }, async (req) => {
    refuseTelegram(req.params.type);
    await apply(req.params, undefined);
    return { applied: true };
  });
}
