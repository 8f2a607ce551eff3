// The settings a deployment runs with: its newest stored version, or version 1 (the defaults)
// when the owner never changed them. Version 1 is not written until the first change, so
// deployments made before settings existed need no backfill.
import { checkSettings, defaultSettings, isTelegramText, type AssistantSettings } from '@berth/contracts/settings';
import type { Deployment } from '../domain/deployment.js';
import type { StoredSettings } from '../platform/store/settings.js';
import type { Services } from '../services.js';

export interface SettingsVersion {
  settings: AssistantSettings;
  version: number;
  updatedAt: string;
}

export function versionOf(stored: StoredSettings): SettingsVersion {
  // Stored documents passed the same check on the way in; one that no longer does (a schema
  // that tightened) falls back to the defaults rather than sending a worker what it would refuse.
  // The welcome was tightened (issue 57 R10): one stored before, which Telegram refused anyway,
  // becomes the built-in welcome instead of taking the persona and access rules down with it.
  const checked = checkSettings(withoutRefusedWelcome(stored.document));
  return {
    settings: checked.ok ? checked.settings : defaultSettings(),
    version: stored.version,
    updatedAt: stored.createdAt,
  };
}

function withoutRefusedWelcome(document: unknown): unknown {
  if (typeof document !== 'object' || document === null) return document;
  const welcome = (document as { welcomeMessage?: unknown }).welcomeMessage;
  return typeof welcome === 'string' && !isTelegramText(welcome) ? { ...document, welcomeMessage: null } : document;
}

export const firstVersion = (d: Pick<Deployment, 'createdAt'>): SettingsVersion => ({
  settings: defaultSettings(),
  version: 1,
  updatedAt: d.createdAt,
});

export async function currentSettings(s: Pick<Services, 'settings'>, d: Deployment): Promise<SettingsVersion> {
  const latest = await s.settings.latest(d.id);
  return latest ? versionOf(latest) : firstVersion(d);
}

/** The settings of each of these deployments, one read for all of them (a restoring pass's page). */
export async function currentSettingsOf(
  s: Pick<Services, 'settings'>,
  ds: readonly Deployment[],
): Promise<Map<string, SettingsVersion>> {
  const stored = ds.length ? await s.settings.latestOf(ds.map((d) => d.id)) : new Map();
  return new Map(ds.map((d) => [d.id, stored.has(d.id) ? versionOf(stored.get(d.id)!) : firstVersion(d)]));
}
