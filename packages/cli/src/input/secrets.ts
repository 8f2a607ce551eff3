// Bot tokens and model keys: taken from a flag, the environment, stdin (flag value "-", one line
// per secret in flag order) or a hidden prompt on a terminal; never echoed, never printed.
import { UsageError } from '../config/env.js';
import { askHidden, readStdin, stdinIsTty } from './prompt.js';

export interface SecretSpec {
  flag: string;
  /** The flag's value as given, "-" meaning stdin. */
  value: string | undefined;
  /** Fallback from the environment (activate only; update never changes a secret unasked). */
  env?: { name: string; value: string | undefined };
  required: boolean;
}

export async function readSecrets(specs: SecretSpec[]): Promise<(string | undefined)[]> {
  let stdinLines: string[] | undefined;
  const fromStdin = async (flag: string) => {
    if (stdinIsTty()) return askHidden(`${flag.replace(/^--/, '')}: `);
    stdinLines ??= (await readStdin())
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    const line = stdinLines.shift();
    if (!line) throw new UsageError(`${flag} - reads the value from stdin, but stdin had no line for it`);
    return line;
  };
  const out: (string | undefined)[] = [];
  for (const spec of specs) {
    if (spec.value === '-') out.push(await fromStdin(spec.flag));
    else if (spec.value) out.push(spec.value);
    else if (spec.env?.value) out.push(spec.env.value);
    else if (!spec.required) out.push(undefined);
    else if (stdinIsTty()) out.push((await askHidden(`${spec.flag.replace(/^--/, '')}: `)) || undefined);
    else {
      throw new UsageError(
        `${spec.flag} is required: pass it${spec.env ? `, set ${spec.env.name},` : ''} or use "${spec.flag} -" and pipe it on stdin`,
      );
    }
  }
  return out;
}
