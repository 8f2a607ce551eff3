// An API session's transcript, read from (or forgotten by) the worker that keeps it: the
// playground restores its conversation after a reload. Same ownership and readiness rules as chat.
import { AppError } from '../platform/errors/app-error.js';
import type { UpstreamPools } from './proxy/upstream-pools.js';
import type { Caller, Services } from '../services.js';
import { resolveChatTarget } from './resolve-chat-target.js';

export interface Transcript {
  id: string;
  messages: Array<{ role: 'user' | 'assistant' | 'system'; content: string }>;
}

async function callWorker(
  s: Services,
  pools: UpstreamPools,
  caller: Caller,
  id: string,
  sessionId: string,
  method: 'GET' | 'DELETE',
) {
  const t = await resolveChatTarget(s, caller, id);
  const { pool, path } = pools.get(t.workerUrl);
  let res: Awaited<ReturnType<typeof pool.request>>;
  try {
    res = await pool.request({
      method,
      path: `${path.replace(/\/$/, '')}/v1/sessions/${encodeURIComponent(sessionId)}`,
      headers: { authorization: `Bearer ${t.gatewayToken}` },
    });
  } catch {
    throw new AppError('BAD_GATEWAY', 'The assistant’s worker could not be reached; try again in a moment.');
  }
  const text = await res.body.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  if (res.statusCode === 404) throw new AppError('NOT_FOUND', 'No conversation is stored under this session id.');
  if (res.statusCode === 400)
    throw new AppError('INVALID_REQUEST', String((body?.error as { message?: string })?.message ?? 'Bad session id.'));
  if (res.statusCode >= 300) throw new AppError('BAD_GATEWAY', `The worker answered ${res.statusCode}.`);
  return body;
}

export async function getTranscript(
  s: Services,
  pools: UpstreamPools,
  caller: Caller,
  id: string,
  sessionId: string,
): Promise<Transcript> {
  const body = (await callWorker(s, pools, caller, id, sessionId, 'GET')) as unknown as Transcript;
  return {
    id: body.id,
    messages: body.messages.map((m) => ({ role: m.role, content: m.content })),
  };
}

export async function forgetTranscript(
  s: Services,
  pools: UpstreamPools,
  caller: Caller,
  id: string,
  sessionId: string,
): Promise<void> {
  await callWorker(s, pools, caller, id, sessionId, 'DELETE');
}
