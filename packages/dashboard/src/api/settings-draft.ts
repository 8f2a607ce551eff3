// The owner's unsaved settings, carried from the "Personality and access" card to the playground
// for a preview (decision 0021, "Preview"). Kept in this tab's sessionStorage only: nothing is
// stored on the server until the owner saves.
import type { components } from '@berth/client';

export type Settings = components['schemas']['AssistantSettings'];

/** The chat body's field the control plane accepts from a session (contracts' SETTINGS_PREVIEW_FIELD). */
export const PREVIEW_FIELD = 'berth_settings_preview';

/** The draft and the version it was edited from. */
export interface SettingsDraft {
  settings: Settings;
  version: number;
}

const keyOf = (id: string) => `berth.settings-draft.${id}`;

export function readDraft(id: string): SettingsDraft | undefined {
  try {
    const raw = sessionStorage.getItem(keyOf(id));
    return raw ? (JSON.parse(raw) as SettingsDraft) : undefined;
  } catch {
    return undefined;
  }
}

export function writeDraft(id: string, draft: SettingsDraft) {
  sessionStorage.setItem(keyOf(id), JSON.stringify(draft));
}

export function clearDraft(id: string) {
  sessionStorage.removeItem(keyOf(id));
}
