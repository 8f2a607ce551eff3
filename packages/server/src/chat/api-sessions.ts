// An API session's transcript, read from (or forgotten by) the worker that keeps it: the
// playground restores its conversation after a reload. Same ownership and readiness rules as
// chat; the call goes through the workers port (the agent host's admin API, or a dedicated
// worker's own), so the control plane keeps one set of connections to its workers.
import { AppError } from '../platform/errors/app-error.js';
import type { AssistantReply } from '../workers/index.js';
import type { Caller, Services } from '../services.js';
import { resolveChatTarget, type ChatTargetDeps } from './resolve-chat-target.js';

export type TranscriptDeps = ChatTargetDeps & Pick<Services, 'workers'>;

export interface Transcript {
  id: string;
  messages: Array<{ role: 'user' | 'assistant' | 'system'; content: string }>;
}

async function callWorker(s: TranscriptDeps, caller: Caller, id: string, sessionId: string, method: 'GET' | 'DELETE') {
  const t = await resolveChatTarget(s, caller, id);
  let res: AssistantReply;
  try {
    res = await s.workers.assistantCall(t.workerName, method, `/v1/sessions/${encodeURIComponent(sessionId)}`);
  } catch {
    throw new AppError('BAD_GATEWAY', 'The assistant’s worker could not be reached; try again in a moment.');
  }
  const body = res.json as Record<string, unknown> | undefined;
  if (res.status === 404) throw new AppError('NOT_FOUND', 'No conversation is stored under this session id.');
  if (res.status === 400)
    throw new AppError('INVALID_REQUEST', String((body?.error as { message?: string })?.message ?? 'Bad session id.'));
  if (res.status >= 300) throw new AppError('BAD_GATEWAY', `The worker answered ${res.status}.`);
  return body;
}

export async function getTranscript(
  s: TranscriptDeps,
  caller: Caller,
  id: string,
  sessionId: string,
): Promise<Transcript> {
  const body = (await callWorker(s, caller, id, sessionId, 'GET')) as unknown as Transcript;
  return {
    id: body.id,
    messages: body.messages.map((m) => ({ role: m.role, content: m.content })),
  };
}

export async function forgetTranscript(
  s: TranscriptDeps,
  caller: Caller,
  id: string,
  sessionId: string,
): Promise<void> {
  await callWorker(s, caller, id, sessionId, 'DELETE');
}
