// What an agent host that died before listening said, for the control plane's error. Node ends an
// uncaught exception with its version ("Node.js v20.20.2"), so the last line alone told the
// operator nothing; the error is the last line that names one (`Error: Cannot find module …`).
// Run as another uid (root starts the host as AGENT_HOST_UID), a directory above the code that uid
// cannot enter is the usual cause of that error (uid-access.ts checks the program and Node before
// a start; a dependency elsewhere is not checked), or a missing build.

/** The stderr lines kept: enough for a stack's head after its trailing lines. */
export const KEPT_LINES = 40;

/** `Error: …`, `TypeError [ERR_X]: …`, `AggregateError: …`, an unhandled rejection's. */
const ERROR_LINE = /^\[?(?:[A-Z]\w*)?(?:Error|Rejection|Exception)\b(?:\s*\[\w+\])?:/;
const NODE_VERSION = /^Node\.js v\d+\.\d+\.\d+$/;
/** Nothing to say: a stack's braces and carets, Node's advice on flags. */
const NOISE = /^[\s{}()[\]^,]*$|^\(Use `node --trace/;
const UNREADABLE = /Cannot find (?:module|package)|EACCES|EPERM|permission denied/i;

/**
 * The host's last words from its last stderr lines: the last error line if there is one (with a
 * hint when it runs as another uid and the error is one of a directory it cannot read), else the
 * last line that is not Node's version; '' when it said nothing.
 */
export function lastWords(lines: readonly string[], runAsUid?: number): string {
  const said = lines.filter((l) => !NOISE.test(l) && !NODE_VERSION.test(l.trim()));
  // A top-level error before one indented inside it (an AggregateError's errors, a cause).
  const error = said.findLast((l) => ERROR_LINE.test(l)) ?? said.findLast((l) => ERROR_LINE.test(l.trim()));
  const words = (error ?? said.at(-1) ?? '').trim().slice(0, 500);
  if (error && runAsUid !== undefined && UNREADABLE.test(error))
    return `${words} (the agent host runs as uid ${runAsUid}, AGENT_HOST_UID: that uid must be able to enter every directory above the code and read it, or the build is missing: npm run build)`;
  return words;
}
