// Settlements are written just after a reply's last byte: tests wait for the books to catch up.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Reads until `ok` holds or `timeoutMs` passes; returns the last value read either way. */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every file under `dir`, for scanning a worker's data for a secret. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
