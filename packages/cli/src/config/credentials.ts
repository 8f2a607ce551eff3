// The key saved by `berth login`: config.json in the user's config directory, readable by the
// user alone (directory 0700, file 0600), written through a temporary file so a crash never
// leaves half a key behind.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SavedConfig {
  apiKey?: string;
}

export const configFile = (dir: string) => join(dir, 'config.json');

export function readSavedKey(dir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(configFile(dir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as SavedConfig;
    return typeof parsed.apiKey === 'string' && parsed.apiKey ? parsed.apiKey : undefined;
  } catch {
    throw new Error(`${configFile(dir)} is not valid JSON; delete it and run: berth login`);
  }
}

export function saveKey(dir: string, apiKey: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir keeps the mode of a directory that already exists; it holds a secret, so tighten it.
  chmodSync(dir, 0o700);
  const file = configFile(dir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ apiKey } satisfies SavedConfig, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

/** Removes the saved key; false when there was none. */
export function forgetKey(dir: string): boolean {
  const file = configFile(dir);
  try {
    readFileSync(file);
  } catch {
    return false;
  }
  rmSync(file, { force: true });
  return true;
}
