// An assistant's pending reminders (DESIGN §7.4), read from and cancelled in its running worker:
// its owner sees what each end user asked for and clears what should not go out (issue 57 R5: one
// user filled the assistant's 50 slots). Same ownership as settings; the worker must be running,
// so anything but an active assistant is ASSISTANT_NOT_READY. The call goes through the workers
// port (the agent host's admin API, or a dedicated worker's own), as pairings and sessions do.
import { nextStepWhenNotReady } from '../domain/next-step.js';
import { AppError } from '../platform/errors/app-error.js';
import { loadOwned } from '../deployments/index.js';
import { notReadyRetry } from '../chat/index.js';
import type { AssistantReply } from '../workers/index.js';
import type { Caller, Services } from '../services.js';

export type ReminderDeps = Pick<Services, 'deployments' | 'workers'>;

export interface Reminder {
  id: string;
  user: string;
  chatId: string;
  text: string;
  task: boolean;
  at: string;
  cron: string | null;
  timezone: string | null;
}

const notReady = (status: string, id: string, why: string) =>
  new AppError(
    'ASSISTANT_NOT_READY',
    `The assistant is ${status}${why}; its reminders live in its running worker. ${nextStepWhenNotReady(status, id)}`,
    { status },
    notReadyRetry(status),
  );

async function callWorker(s: ReminderDeps, caller: Caller, id: string, method: 'GET' | 'DELETE', path: string) {
  const d = await loadOwned(s, caller, id);
  if (d.status !== 'active' || !d.workerUrl)
    throw notReady(d.status, d.id, d.status === 'active' ? ' but its worker is not provisioned yet' : '');
  let res: AssistantReply;
  try {
    res = await s.workers.assistantCall(d.workerName, method, `/reminders${path}`);
  } catch {
    throw new AppError('BAD_GATEWAY', 'The assistant’s worker could not be reached; try again in a moment.');
  }
  const error = res.json?.error as { message?: unknown; details?: { missing?: unknown } } | undefined;
  if (res.status === 404 && error?.details?.missing === 'reminder')
    throw new AppError(
      'NOT_FOUND',
      typeof error.message === 'string' ? error.message : 'No pending reminder has this id.',
    );
  // The record says active, the backend runs no such worker (a restart or move under way).
  if (res.status === 404) throw notReady(d.status, d.id, ' but its worker is not running right now');
  if (res.status !== 200)
    throw new AppError('BAD_GATEWAY', `The assistant’s worker answered ${res.status}; try again in a moment.`);
  return res.json?.data;
}

export async function listReminders(s: ReminderDeps, caller: Caller, id: string): Promise<Reminder[]> {
  const data = await callWorker(s, caller, id, 'GET', '');
  if (!Array.isArray(data)) throw new AppError('BAD_GATEWAY', 'The assistant’s worker answered without its reminders.');
  return data as Reminder[];
}

/** Cancels one pending reminder (any end user's) or, without `reminderId`, every one; how many. */
export async function clearReminders(
  s: ReminderDeps,
  caller: Caller,
  id: string,
  reminderId?: string,
): Promise<{ success: true; removed: number }> {
  const data = await callWorker(s, caller, id, 'DELETE', reminderId === undefined ? '' : `/${reminderId}`);
  const removed = typeof data?.removed === 'number' ? data.removed : 0;
  return { success: true, removed };
}
