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
  /** Where a person gets it ("from @BotFather in Telegram"), said when it is asked for or missing. */
  source?: string;
}

export async function readSecrets(specs: SecretSpec[]): Promise<(string | undefined)[]> {
  let stdinLines: string[] | undefined;
  const prompt = (spec: SecretSpec) => `${spec.flag.replace(/^--/, '')}${spec.source ? ` (${spec.source})` : ''}: `;
  const fromStdin = async (spec: SecretSpec) => {
    const flag = spec.flag;
    if (stdinIsTty()) return askHidden(prompt(spec));
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
    if (spec.value === '-') out.push(await fromStdin(spec));
    else if (spec.value) out.push(spec.value);
    else if (spec.env?.value) out.push(spec.env.value);
    else if (!spec.required) out.push(undefined);
    else if (stdinIsTty()) out.push((await askHidden(prompt(spec))) || undefined);
    else {
      throw new UsageError(
        `${spec.flag} is required${spec.source ? ` (${spec.source})` : ''}: pass it${spec.env ? `, set ${spec.env.name},` : ''} or use "${spec.flag} -" and pipe it on stdin`,
      );
    }
  }
  return out;
}
