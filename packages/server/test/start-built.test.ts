// `npm start` runs the bundle only when it is not older than the compiled code it bundles: after a
// `tsc -b` that emitted and no new bundle, the fresh dist/main.js runs, never a stale bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';
// @ts-expect-error plain JavaScript without declarations (the bin/ scripts run before any build)
import { freshBundle } from '../bin/start-built.js';
// @ts-expect-error the same
import { runCached } from '../bin/code-cache.js';
// @ts-expect-error the same
import { mapStackTraces } from '../bin/stack-map.js';

test('the bundle is used when made after the last compile, not when a compile came later or it is missing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-start-built-'));
  try {
    const file = (name: string, at: number) => {
      const p = join(dir, name);
      writeFileSync(p, '');
      utimesSync(p, at, at);
      return pathToFileURL(p);
    };
    const server = file('server.tsbuildinfo', 1_000);
    const contracts = file('contracts.tsbuildinfo', 1_000);
    const bundle = file('main.js', 2_000);
    assert.equal(freshBundle(bundle, [server, contracts])?.href, bundle.href);
    // A later compile of either package, and no new bundle: stale.
    utimesSync(contracts.pathname, 3_000, 3_000);
    assert.equal(freshBundle(bundle, [server, contracts]), undefined);
    // No bundle at all (a build without esbuild).
    assert.equal(freshBundle(pathToFileURL(join(dir, 'none.js')), [server]), undefined);
    // A package never compiled here counts as old.
    assert.equal(freshBundle(bundle, [server, pathToFileURL(join(dir, 'absent'))])?.href, bundle.href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The bundle runs through V8's code cache (bin/code-cache.js): made once, used by the next start,
// and never used for another source, even one of the same length (V8 checks only the length).
test('the code cache is written once, used by the next run, and never for a changed source', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-code-cache-'));
  try {
    const file = join(dir, 'main.cjs');
    const cacheFiles = [join(dir, 'main.cjs.v8cache')];
    const source = (answer: string) =>
      `function answer() { return ${JSON.stringify(answer)}; }\nmodule.exports = { answer, dir: __dirname, own: require('node:path').basename(__filename) };\n`;
    writeFileSync(file, source('first'));
    const first = runCached(file, { cacheFiles });
    assert.equal(first.cached, false);
    assert.equal(first.exports.answer(), 'first');
    assert.equal(first.exports.dir, dir);
    assert.equal(first.exports.own, 'main.cjs');
    assert.equal(first.save(), cacheFiles[0]);
    assert.equal(first.save(), undefined, 'written once');

    const second = runCached(file, { cacheFiles });
    assert.equal(second.cached, true);
    assert.equal(second.exports.answer(), 'first');
    assert.equal(second.save(), undefined, 'a cache used as it was is not rewritten');

    // Another source of the same length: its own code runs, and its cache replaces the old one.
    writeFileSync(file, source('other'));
    const changed = runCached(file, { cacheFiles });
    assert.equal(changed.cached, false);
    assert.equal(changed.exports.answer(), 'other');
    assert.equal(changed.save(), cacheFiles[0]);
    assert.equal(runCached(file, { cacheFiles }).cached, true);

    // A damaged cache file: its checksum refuses it and the source is compiled as if there were none.
    const data = readFileSync(cacheFiles[0]!);
    data.fill(7, 40);
    writeFileSync(cacheFiles[0]!, data);
    const damaged = runCached(file, { cacheFiles });
    assert.equal(damaged.cached, false);
    assert.equal(damaged.exports.answer(), 'other');
    // A place that cannot be written is skipped for the next one.
    const fallback = join(dir, 'elsewhere', 'main.cjs.v8cache');
    assert.equal(runCached(file, { cacheFiles: [join(dir, 'main.cjs', 'not-a-folder'), fallback] }).save(), fallback);
    // A cache V8 refuses in the first place (whole, but made under other V8 flags) does not hide a
    // good one in the next: a read-only image's baked cache must not keep every start uncached.
    // Each run in a process of its own: V8 does not read cached data for a source it compiled already.
    const other = join(dir, 'other.cjs');
    writeFileSync(other, source('elsewhere'));
    const refused = join(dir, 'refused.v8cache');
    const good = join(dir, 'good', 'other.cjs.v8cache');
    const run = (places: string[], save = false) =>
      JSON.parse(
        execFileSync(process.execPath, [
          '--input-type=module',
          '-e',
          `import { runCached } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../bin/code-cache.js')).href)};
const r = runCached(${JSON.stringify(other)}, { cacheFiles: ${JSON.stringify(places)} });
${save ? 'r.save();' : ''}
console.log(JSON.stringify({ cached: r.cached, answer: r.exports.answer() }));`,
        ]).toString(),
      ) as { cached: boolean; answer: string };
    run([good], true);
    assert.equal(run([good]).cached, true);
    const crc = (b: Buffer) => {
      const sum = Buffer.alloc(4);
      sum.writeUInt32BE(crc32(b));
      return sum;
    };
    const junk = Buffer.alloc(256, 9);
    writeFileSync(refused, Buffer.concat([crc(readFileSync(other)), crc(junk), junk]));
    assert.deepEqual(run([refused]), { cached: false, answer: 'elsewhere' }, 'V8 refuses it');
    assert.deepEqual(run([refused, good]), { cached: true, answer: 'elsewhere' }, 'the next place is read');
    // A shared folder others can write to (the temporary folder's known name, made first by
    // another user) is neither read nor written: a cache planted there would run as this process.
    const open = join(dir, 'open');
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    const planted = join(open, 'main.cjs.v8cache');
    writeFileSync(planted, readFileSync(fallback));
    const shared = runCached(file, { cacheFiles: [join(dir, 'main.cjs', 'not-a-folder'), planted] });
    assert.equal(shared.cached, false, 'a cache in a folder others can write is not used');
    assert.equal(shared.save(), undefined, 'nor written there');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a stack trace's frames in the bundle point at the TypeScript source", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-stack-map-'));
  const previous = Error.prepareStackTrace;
  try {
    const esbuild = await import(createRequire(import.meta.url).resolve('esbuild'));
    await esbuild.build({
      stdin: {
        contents: 'export function boom(): never {\n  // a comment\n  throw new Error("boom");\n}\n',
        sourcefile: join(dir, 'src/boom.ts'),
        loader: 'ts',
      },
      outfile: join(dir, 'bundle/main.cjs'),
      format: 'cjs',
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    const file = join(dir, 'bundle/main.cjs');
    mapStackTraces(file);
    const { exports } = runCached(file, { cacheFiles: [] });
    let stack = '';
    try {
      exports.boom();
    } catch (err) {
      stack = (err as Error).stack!;
    }
    assert.match(stack, /^Error: boom\n/);
    assert.ok(stack.includes(`${join(dir, 'src/boom.ts')}:3:9`), stack);
    assert.ok(!stack.includes('main.cjs'), stack);
  } finally {
    Error.prepareStackTrace = previous;
    rmSync(dir, { recursive: true, force: true });
  }
});
