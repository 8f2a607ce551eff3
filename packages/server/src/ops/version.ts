// What build is running (GET /api/version, the backup manifest): the server package's version and
// the source commit when the code runs from a git checkout (null otherwise).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PACKAGE_ROOT, shippedFile } from '../platform/package-root.js';

let cached: { version: string; commit: string | null } | undefined;

export function buildInfo(): { version: string; commit: string | null } {
  if (cached) return cached;
  const pkg = JSON.parse(readFileSync(shippedFile('package.json'), 'utf8')) as { version: string };
  let commit: string | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: PACKAGE_ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    })
      .toString()
      .trim();
    if (!/^[0-9a-f]{40}$/.test(commit)) commit = null;
  } catch {
    commit = null;
  }
  cached = { version: pkg.version, commit };
  return cached;
}
