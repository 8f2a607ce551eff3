// What every user command gets: the environment, --json, and a client holding the key in use.
import { io } from '../io.js';
import { BerthClient } from '../api/client.js';
import { NoKeyError } from '../api/errors.js';
import { readSavedKey } from '../config/credentials.js';
import type { CliEnv } from '../config/env.js';

export interface Ctx {
  env: CliEnv;
  json: boolean;
  /** The key in use and where it came from. */
  key(): { key: string; source: 'BERTH_API_KEY' | 'config' };
  client(): BerthClient;
}

export function createCtx(env: CliEnv, json: boolean): Ctx {
  const key: Ctx['key'] = () => {
    if (env.apiKey) return { key: env.apiKey, source: 'BERTH_API_KEY' };
    const saved = readSavedKey(env.configDir);
    if (saved) return { key: saved, source: 'config' };
    throw new NoKeyError('no API key');
  };
  return { env, json, key, client: () => new BerthClient(env.url, key().key, io().fetch) };
}

/** Human progress lines go to stderr, so stdout carries only results. */
export function note(text: string): void {
  io().stderr.write(`${text}\n`);
}
