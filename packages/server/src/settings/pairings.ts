// Pairing (DESIGN §7.1): a stranger who writes to a bot in "pairing" mode gets a code; the
// agent keeps pending codes for an hour. The owner lists them here and approves one, which adds
// that Telegram user to access.telegramUserIds as a new settings version, applied live. The code
// is removed from the agent only after the version is stored, so a failure leaves it pending.
import { AppError } from '../platform/errors/app-error.js';
import { wantsWorker } from '../domain/lifecycle.js';
import type { Caller } from '../services.js';
import type { Deployment } from '../domain/deployment.js';
import { loadOwned } from '../deployments/index.js';
import { currentSettings, type SettingsVersion } from './current-settings.js';
import { storeAndApply, type SettingsDeps } from './settings-verbs.js';

export interface PendingPairing {
  code: string;
  telegramUserId: number;
  name: string | null;
  expiresAt: string;
}

const unreachable = (status: number) =>
  new AppError('BAD_GATEWAY', `The assistant's worker could not answer (status ${status}); try again in a moment.`);

export async function listPairings(s: SettingsDeps, caller: Caller, id: string): Promise<PendingPairing[]> {
  const d = await loadOwned(s, caller, id);
  // Codes live in the running worker; a stopped assistant hands out none.
  if (!wantsWorker(d.desired)) return [];
  const res = await s.workers.assistantCall(d.workerName, 'GET', '/pairings');
  if (res.status === 404) return [];
  if (res.status !== 200 || !Array.isArray(res.json?.data)) throw unreachable(res.status);
  return res.json.data as PendingPairing[];
}

export async function approvePairing(
  s: SettingsDeps,
  caller: Caller,
  id: string,
  code: string,
): Promise<SettingsVersion> {
  return approvePairingOf(s, await loadOwned(s, caller, id), code);
}

/** Approves `code` of this deployment: the owner's call, or the owner's button in a channel (decidePairingAsWorker in pairing-requested.ts). */
export async function approvePairingOf(s: SettingsDeps, d: Deployment, code: string): Promise<SettingsVersion> {
  const upper = code.toUpperCase();
  const missing = () =>
    new AppError('NOT_FOUND', `No pending pairing code ${upper} for this assistant; codes are valid for one hour.`);
  if (!wantsWorker(d.desired)) throw missing();
  const res = await s.workers.assistantCall(d.workerName, 'GET', `/pairings/${upper}`);
  if (res.status === 404) {
    const said = typeof res.json?.error?.message === 'string' ? res.json.error.message : undefined;
    throw said ? new AppError('NOT_FOUND', said) : missing();
  }
  if (res.status !== 200 || typeof res.json?.data?.telegramUserId !== 'number') throw unreachable(res.status);
  const userId = res.json.data.telegramUserId as number;
  const { settings } = await currentSettings(s, d);
  const ids = settings.access.telegramUserIds;
  if (!ids.includes(userId) && ids.length >= 1000)
    throw new AppError('INVALID_INPUT', 'access.telegramUserIds already holds 1000 users; remove some first.');
  const next = ids.includes(userId)
    ? settings
    : { ...settings, access: { ...settings.access, telegramUserIds: [...ids, userId] } };
  const saved = await storeAndApply(s, d.id, next);
  await s.workers
    .assistantCall(d.workerName, 'DELETE', `/pairings/${upper}`)
    .catch((err) =>
      s.log.warn({ deploymentId: d.id, err: (err as Error).message }, 'removing an approved code failed'),
    );
  return saved;
}

/** Refuses a pending code: the stranger stays out (and may ask again later for a new code). */
export async function denyPairing(
  s: SettingsDeps,
  caller: Caller,
  id: string,
  code: string,
): Promise<{ success: true }> {
  return denyPairingOf(s, await loadOwned(s, caller, id), code);
}

export async function denyPairingOf(s: SettingsDeps, d: Deployment, code: string): Promise<{ success: true }> {
  const upper = code.toUpperCase();
  const missing = () =>
    new AppError('NOT_FOUND', `No pending pairing code ${upper} for this assistant; codes are valid for one hour.`);
  if (!wantsWorker(d.desired)) throw missing();
  const res = await s.workers.assistantCall(d.workerName, 'DELETE', `/pairings/${upper}`);
  if (res.status === 404) throw missing();
  if (res.status >= 300) throw unreachable(res.status);
  return { success: true };
}
