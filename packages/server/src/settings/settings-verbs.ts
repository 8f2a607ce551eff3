// The owner's verbs on an assistant's settings (DESIGN §7.1): read, replace, list versions, roll
// back. Each checks ownership first; a change is stored as a new version and, on a deployment
// that wants a worker, pushed to the running worker (apply-live.ts).
import type { AssistantSettings } from '@berth/contracts/settings';
import { defaultSettings } from '@berth/contracts/settings';
import { AppError, notFound } from '../platform/errors/app-error.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from '../deployments/index.js';
import { applyLive } from './apply-live.js';
import { currentSettings, firstVersion, versionOf, type SettingsVersion } from './current-settings.js';

export type SettingsDeps = Pick<Services, 'settings' | 'deployments' | 'workers' | 'log' | 'now'>;

export async function getSettings(s: SettingsDeps, caller: Caller, id: string): Promise<SettingsVersion> {
  return currentSettings(s, await loadOwned(s, caller, id));
}

/** The kept versions, newest first; version 1 (the defaults) while nothing was changed. */
export async function listSettingsVersions(s: SettingsDeps, caller: Caller, id: string): Promise<SettingsVersion[]> {
  const d = await loadOwned(s, caller, id);
  const stored = await s.settings.list(d.id);
  return stored.length ? stored.map(versionOf) : [firstVersion(d)];
}

/** `settings` passed the route's schema (the same AssistantSettings check the agent runs). */
export async function putSettings(
  s: SettingsDeps,
  caller: Caller,
  id: string,
  settings: AssistantSettings,
): Promise<SettingsVersion> {
  const d = await loadOwned(s, caller, id);
  return storeAndApply(s, d.id, settings);
}

export async function rollbackSettings(
  s: SettingsDeps,
  caller: Caller,
  id: string,
  version: number,
): Promise<SettingsVersion> {
  const d = await loadOwned(s, caller, id);
  const repo = s.settings;
  const stored = await repo.get(d.id, version);
  // Version 1 exists implicitly until the first change is stored.
  const target = stored ? versionOf(stored) : version === 1 && !(await repo.latest(d.id)) ? firstVersion(d) : null;
  if (!target) {
    const kept = (await repo.list(d.id)).map((v) => v.version);
    throw new AppError(
      'NOT_FOUND',
      `Settings version ${version} does not exist for this assistant; it keeps versions ${kept.length ? kept.join(', ') : '1'}.`,
      { versions: kept.length ? kept : [1] },
    );
  }
  return storeAndApply(s, d.id, target.settings);
}

export async function storeAndApply(s: SettingsDeps, deploymentId: string, settings: AssistantSettings) {
  const saved = await s.settings.append(deploymentId, settings, defaultSettings(), s.now().toISOString());
  if (!saved) throw notFound(); // deleted while this request ran
  await applyLive(s, deploymentId, settings);
  return { settings, version: saved.version, updatedAt: saved.createdAt };
}
