// Stack traces of the bundle point at the TypeScript. Node's source maps do not cover code compiled
// as a vm.Script (code-cache.js), and reading the 2.8 MB map at each start cost ~100 ms of it: the
// map is read here at the first stack trace that has a frame in the bundle, with Node's own
// SourceMap, and each such frame's place is rewritten to the source's.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Maps frames in `file` through `${file}.map` in every stack trace formatted from now on.
 * @param {string} file
 */
export function mapStackTraces(file) {
  /** @type {SourceMap | null | undefined} */
  let map; // read at the first frame that needs it; null when it cannot be read
  const base = pathToFileURL(file);
  const load = () => {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    return map;
  };
  /** @param {NodeJS.CallSite} site */
  const frame = (site) => {
    const text = String(site);
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (site.getFileName() !== file || !line || !column) return text;
    const entry = (map === undefined ? load() : map)?.findEntry(line - 1, column - 1);
    if (!entry?.originalSource) return text;
    const source = entry.originalSource.startsWith('file:')
      ? fileURLToPath(entry.originalSource)
      : fileURLToPath(new URL(entry.originalSource, base));
    return text.replace(`${file}:${line}:${column}`, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
  };
  Error.prepareStackTrace = (error, sites) => {
    let head;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = '<error>';
    }
    return sites.length === 0 ? head : `${head}\n    at ${sites.map(frame).join('\n    at ')}`;
  };
}
