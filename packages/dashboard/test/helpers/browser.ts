// Debian's Chromium driven by playwright-core (no downloaded browsers), the dashboard built by Vite
// into a temp folder, an axe-core check and a screenshot per page.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';

const DASHBOARD_ROOT = resolve(import.meta.dirname, '../..');
export const SHOTS_DIR = resolve(DASHBOARD_ROOT, '../../test-results/dashboard');

/** The system Chromium, or undefined (the test then skips and says why). */
function chromiumPath(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const path = execFileSync('which', [name], { encoding: 'utf8' }).trim();
      if (path) return path;
    } catch {
      // not this name
    }
  }
  return undefined;
}

/** The system Chromium, looked up once per test file. */
export const CHROMIUM = chromiumPath();
/** A browser test's `skip` option: false, or why it cannot run here. */
export const skip = CHROMIUM ? false : 'Chromium is not installed (apt-get install -y chromium); CI installs it';

export async function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * The dashboard built as `npm ci` would, from today's code. One build serves every test file that
 * runs on the same sources: it is kept under a hash of everything the build reads (the dashboard,
 * the client and contracts it bundles, the lockfile), so only a change to those builds again.
 */
export async function buildDashboard(): Promise<string> {
  const cacheRoot = resolve(DASHBOARD_ROOT, '../../node_modules/.cache/berth');
  const outDir = join(cacheRoot, `dashboard-${sourcesHash()}`);
  if (existsSync(join(outDir, 'index.html'))) return outDir;
  mkdirSync(cacheRoot, { recursive: true });
  // Built beside its final name and renamed into place, so two files building at once never read
  // a half-written folder: the loser of the rename keeps the winner's identical build.
  const tmp = mkdtempSync(join(cacheRoot, 'dashboard-build-'));
  await build({ root: DASHBOARD_ROOT, logLevel: 'warn', build: { outDir: tmp, emptyOutDir: true } });
  try {
    renameSync(tmp, outDir);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
  return outDir;
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  const packages = resolve(DASHBOARD_ROOT, '..');
  const inputs = [
    join(DASHBOARD_ROOT, 'src'),
    join(DASHBOARD_ROOT, 'index.html'),
    join(DASHBOARD_ROOT, 'vite.config.ts'),
    join(DASHBOARD_ROOT, 'package.json'),
    join(packages, 'client', 'src'),
    join(packages, 'contracts', 'src'),
    resolve(packages, '../package-lock.json'),
  ];
  const files = inputs.flatMap((p) => (statSync(p).isDirectory() ? filesUnder(p) : [p])).sort();
  for (const f of files) hash.update(f).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/**
 * A port for a server started later (the control plane's PUBLIC_BASE_URL, a relay): below Linux's
 * ephemeral range, which any process's listen(0) or outgoing connection may take meanwhile (a
 * dashboard file met EADDRINUSE on one under a second suite's load).
 */
export { freePort } from '../../../server/test/helpers/callback-receiver.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Runs axe-core on the page; fails on any serious or critical violation, naming them. */
export async function checkA11y(page: Page, name: string): Promise<void> {
  // Evaluated through the DevTools protocol, not a <script>: the page's CSP stays untouched.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe;
    interface Violation {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: string[] }[];
    }
    const res = await axe.run();
    return res.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5),
    }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `axe found serious/critical violations on ${name}: ${JSON.stringify(bad, null, 2)}`);
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: join(SHOTS_DIR, `${name}.png`), fullPage: true });
}

/** Checks a page: no serious axe violations, then a screenshot. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await checkA11y(page, name);
  await shot(page, name);
}
