// POST /responses (issue 65): the chat use case (complete-chat.ts) with the request translated to
// a chat completion and the worker's answer translated back, so auth, ownership, readiness, the
// body's checks, the caps in flight and metering are chat's own, in chat's order.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { completeChat, type ChatDeps } from '../complete-chat.js';
import { fastifyClient, type ChatProxy, type ProxyClient } from '../proxy/chat-proxy.js';
import type { ResponseLog } from './response-log.js';
import { ResponseStream, translateCompletion, type ResponseView } from './translate-answer.js';
import { translateRequest, type TranslatedRequest } from './translate-request.js';

const EMPTY = Buffer.alloc(0);

export async function createResponse(
  s: ChatDeps,
  proxy: ChatProxy,
  log: ResponseLog,
  req: FastifyRequest<{ Params: { deploymentId: string }; Body: Buffer }>,
  reply: FastifyReply,
): Promise<void> {
  let t: TranslatedRequest | undefined;
  const keep = (r: ResponseView) => {
    if (t?.store) log.keep(req.params.deploymentId, r);
  };
  await completeChat(
    s,
    {
      caller: req,
      deploymentId: req.params.deploymentId,
      body: () => {
        t = translateRequest(req.body ?? EMPTY);
        return t.chat;
      },
      slotKey: req.apiKeyId ?? req.userId,
      signedIn: req.sessionId !== undefined,
    },
    (target, body) => proxy.forward(responsesClient(req, reply, t!, keep), target, '/v1/chat/completions', body),
  );
}

/** The proxy's client for one Responses call: its session is the response's, its answers rewritten. */
function responsesClient(
  req: FastifyRequest,
  reply: FastifyReply,
  t: TranslatedRequest,
  keep: (r: ResponseView) => void,
): ProxyClient {
  const base = fastifyClient(req, reply);
  return {
    ...base,
    // The response id names the conversation; a client's own X-Assistant-Session-Id is not used here.
    session: t.ids.session,
    ...(t.stream ? { rewrite: new ResponseStream(t, keep) } : {}),
    send(status, headers, body) {
      const r = status === 200 ? translateCompletion(t, body) : undefined;
      if (!r) return base.send(status, headers, body);
      keep(r);
      return base.send(
        status,
        { ...headers, 'content-type': 'application/json; charset=utf-8' },
        Buffer.from(JSON.stringify(r)),
      );
    },
  };
}
