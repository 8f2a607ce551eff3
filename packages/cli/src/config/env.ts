// The one place the user CLI reads its environment (DESIGN.md §3): where the server is, which key
// to use, and where the user's config directory lives.
import { homedir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface CliEnv {
  /** Base URL of the control plane, without a trailing slash. */
  url: string;
  /** BERTH_API_KEY, when set; it wins over the key saved by `berth login`. */
  apiKey: string | undefined;
  /** Directory holding config.json. */
  configDir: string;
  /** Secrets for activate/update, when the user keeps them in the environment. */
  botToken: string | undefined;
  modelKey: string | undefined;
}

export function readCliEnv(env: NodeJS.ProcessEnv = process.env): CliEnv {
  const url = (env.BERTH_URL?.trim() || DEFAULT_URL).replace(/\/+$/, '');
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError(`BERTH_URL must be an http:// or https:// URL, got "${url}"`);
  }
  const configHome = env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.config');
  return {
    url,
    apiKey: env.BERTH_API_KEY?.trim() || undefined,
    configDir: join(configHome, 'berth'),
    botToken: env.BERTH_BOT_TOKEN || undefined,
    modelKey: env.BERTH_MODEL_KEY || undefined,
  };
}

/** A mistake in how the command was called: exit code 2, with a hint. */
export class UsageError extends Error {}
