// POST /responses (issue 65): the chat use case (complete-chat.ts) with the request translated to
// a chat completion and the worker's answer translated back, so auth, ownership, readiness, the
// body's checks, the caps in flight and metering are chat's own, in chat's order.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import { completeChat, type ChatDeps } from '../complete-chat.js';
import { fastifyClient, type ChatProxy, type ProxyClient } from '../proxy/chat-proxy.js';
import { notStored, ResponseStream, translateCompletion, type ResponseView } from './translate-answer.js';
import { translateRequest, type TranslatedRequest } from './translate-request.js';

export type ResponsesDeps = ChatDeps & Pick<Services, 'responses' | 'now'>;

const EMPTY = Buffer.alloc(0);

export async function createResponse(
  s: ResponsesDeps,
  proxy: ChatProxy,
  req: FastifyRequest<{ Params: { deploymentId: string }; Body: Buffer }>,
  reply: FastifyReply,
): Promise<void> {
  const deploymentId = req.params.deploymentId;
  let t: TranslatedRequest | undefined;
  /**
   * What the client is told of a finished response: as it is once stored (or when not asked to
   * be), its failed form when the write failed, since a completed response must be retrievable.
   */
  const settle = (r: ResponseView): ResponseView | Promise<ResponseView> =>
    t?.store ? keep(s, deploymentId, r, req) : r;
  await completeChat(
    s,
    {
      caller: req,
      deploymentId,
      body: async () => {
        t = await translateRequest(
          req.body ?? EMPTY,
          async (id) => (await s.responses.find(deploymentId, id)) !== undefined,
        );
        return t.chat;
      },
      slotKey: req.apiKeyId ?? req.userId,
      signedIn: req.sessionId !== undefined,
    },
    (target, body) => proxy.forward(responsesClient(req, reply, t!, settle), target, '/v1/chat/completions', body),
  );
}

/** Stores `r`: the response itself once written, its failed form when the write fails (logged). */
async function keep(s: ResponsesDeps, deploymentId: string, r: ResponseView, req: FastifyRequest) {
  try {
    await s.responses.keep(deploymentId, r.id, JSON.stringify(r), s.now());
    return r;
  } catch (err) {
    req.log.warn({ err: (err as Error).message, responseId: r.id }, 'a response could not be stored');
    return notStored(r, req.id);
  }
}

/** The proxy's client for one Responses call: its session is the response's, its answers rewritten. */
function responsesClient(
  req: FastifyRequest,
  reply: FastifyReply,
  t: TranslatedRequest,
  settle: (r: ResponseView) => ResponseView | Promise<ResponseView>,
): ProxyClient {
  const base = fastifyClient(req, reply);
  return {
    ...base,
    // The response id names the conversation; a client's own X-Assistant-Session-Id is not used here.
    session: t.ids.session,
    // A streamed response is stored while its last events go out; response.completed waits for the
    // write (ResponseStream.end), so a client's next call finds it, on any replica.
    ...(t.stream ? { rewrite: new ResponseStream(t, settle) } : {}),
    async send(status, headers, body) {
      const r = status === 200 ? translateCompletion(t, body) : undefined;
      if (!r) return base.send(status, headers, body);
      // Stored before it is answered: a GET or previous_response_id right after finds it, on any replica.
      const told = await settle(r);
      return base.send(
        status,
        { ...headers, 'content-type': 'application/json; charset=utf-8' },
        Buffer.from(JSON.stringify(told)),
      );
    },
  };
}
