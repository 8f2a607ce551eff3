// How to reach an active assistant from elsewhere: the base URL for OpenAI-compatible clients, the
// model name they send, and the Telegram bot's @username and link (asked of the running worker).
import { AppError } from '../platform/errors/app-error.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from './load-owned.js';

export async function connectInfo(
  s: Pick<Services, 'deployments' | 'workers' | 'accounts'>,
  caller: Caller,
  id: string,
) {
  const d = await loadOwned(s, caller, id);
  if (d.status !== 'active') {
    throw new AppError('INVALID_STATE', `The assistant is ${d.status}; it can be reached once it is active.`);
  }
  const health = await s.workers.workerHealth(d.workerName).catch(() => undefined);
  const botUsername = health?.botUsername ?? null;
  return {
    baseUrl: `${s.accounts.publicBaseUrl}/api/v1/assistants/${d.id}`,
    model: 'assistant-agent' as const,
    botUsername,
    botLink: botUsername ? `https://t.me/${botUsername}` : null,
  };
}
