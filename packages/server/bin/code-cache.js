// Runs the CommonJS bundle through V8's code cache: compiling its 3.5 MB at every start, and then
// each function the start calls, was the larger part of loading the code (docs/decisions/0027-scale.md).
// Node 22's module.enableCompileCache() does this for modules, Node 20 has nothing of the kind, so
// the bundle is compiled here as a vm.Script with the cached data of an earlier start. The cache
// file starts with the CRC-32 of the source it was made from, then that of the cached data: V8
// checks only the source's length (and its own version and flags, `cachedDataRejected`), so a cache
// of another source would run that source's code, and it does not check its data (damaged data
// would be deserialized as it is). CRC-32, as Node 22's own compile cache checks its sources: the
// checks are against a changed or damaged file, not an attacker (who could write the bundle
// itself, trusted() below); SHA-256 of the 5 MB was ~20 ms of each start's CPU, CRC-32 is ~1 ms.
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Module, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

const HASH_BYTES = 4;
const checksum = (data) => {
  const sum = Buffer.alloc(HASH_BYTES);
  sum.writeUInt32BE(crc32(data));
  return sum;
};

/** Where the cache of `file` is kept: beside it, or in the temporary folder when that is read-only (an image). */
export function cacheFilesFor(file) {
  return [
    `${file}.v8cache`,
    join(tmpdir(), `berth-code-cache-${process.getuid?.() ?? 'user'}`, `${basename(file)}.v8cache`),
  ];
}

/**
 * Whether the folder of `file` may hold this process's cache: beside the bundle (whoever can write
 * there can change the bundle itself), or a folder of its own that no one else can write to. The
 * temporary folder's name is known to every user of the machine, and a cache planted there by
 * another would run as this process (V8 does not check the data against the source).
 */
function trusted(file, besideBundle) {
  if (besideBundle) return true;
  const dir = dirname(file);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && !st.isSymbolicLink() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Each cache of this source, in the order of the places (a file that is damaged or elsewhere's is skipped). */
function* cachesOf(files, key) {
  for (const [i, f] of files.entries()) {
    if (!trusted(f, i === 0)) continue;
    let data;
    try {
      data = readFileSync(f);
    } catch {
      continue;
    }
    const cached = data.subarray(2 * HASH_BYTES);
    if (data.subarray(0, HASH_BYTES).equals(key) && data.subarray(HASH_BYTES, 2 * HASH_BYTES).equals(checksum(cached)))
      yield cached;
  }
}

function writeCache(files, key, data) {
  for (const [i, f] of files.entries()) {
    if (!trusted(f, i === 0)) continue;
    try {
      mkdirSync(dirname(f), { recursive: true });
      const tmp = `${f}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([key, checksum(data), data]));
      renameSync(tmp, f); // a start reading it meanwhile sees the old cache or the new, never half of one
      return f;
    } catch {
      /* read-only here: the next place */
    }
  }
  return undefined;
}

/**
 * Runs the CommonJS file `file` as `require` would, compiled with its code cache when one made from
 * the same source exists. `save()` writes the cache from every function compiled so far (call it
 * once the start has run, so the cache holds the start's functions too); it does nothing when the
 * cache was used as it was.
 * @param {string} file
 * @param {{ cacheFiles?: string[] }} [o]
 */
export function runCached(file, o = {}) {
  const files = o.cacheFiles ?? cacheFilesFor(file);
  const source = readFileSync(file);
  const key = checksum(source);
  const wrapped = Module.wrap(source.toString('utf8'));
  // A cache V8 refuses (made under other V8 flags, e.g. a NODE_OPTIONS of the image's) does not hide
  // the next place's: the one beside a read-only image's bundle would otherwise be tried, refused,
  // and this start's own cache, written to the temporary folder, never read.
  let script;
  let cached = false;
  for (const cachedData of cachesOf(files, key)) {
    script = new vm.Script(wrapped, { filename: file, cachedData });
    cached = !script.cachedDataRejected;
    if (cached) break;
  }
  script ??= new vm.Script(wrapped, { filename: file });
  const module = new Module(file);
  module.filename = file;
  module.paths = Module._nodeModulePaths(dirname(file));
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  module.loaded = true;
  let saved = cached;
  return {
    exports: module.exports,
    /** Whether the code cache was used. */
    cached,
    /** Writes the cache unless it was used as it was; the file written, if any. */
    save() {
      if (saved) return undefined;
      saved = true;
      return writeCache(files, key, script.createCachedData());
    },
  };
}

/**
 * A `require` for the bundle's CommonJS files of their own (the Kubernetes client): each runs
 * through its own code cache as runCached does, saved `saveAfterMs` after it ran. The bundle finds
 * it under Symbol.for('berth.cachedRequire') (scripts/bundle-server.mjs); a file required twice is
 * run once.
 * @param {number} saveAfterMs
 */
export function cachedRequire(saveAfterMs) {
  const loaded = new Map();
  return (file) => {
    let exports = loaded.get(file);
    if (!exports) {
      const run = runCached(file);
      setTimeout(() => run.save(), saveAfterMs).unref();
      exports = run.exports;
      loaded.set(file, exports);
    }
    return exports;
  };
}
