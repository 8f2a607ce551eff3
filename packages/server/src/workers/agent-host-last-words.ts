// What an agent host that died before listening said, for the control plane's error. Node ends an
// uncaught exception with its version ("Node.js v20.20.2"), so the last line alone told the
// operator nothing; the error is the last line that names one (`Error: Cannot find module …`).
// Run as another uid (root starts the host as AGENT_HOST_UID), a code or data directory that uid
// cannot read or enter is the usual cause of that error: a directory made by `mktemp -d` (0700) or
// a checkout under /root, above the code, is enough.

/** The stderr lines kept: enough for a stack's head after its trailing lines. */
export const KEPT_LINES = 40;

const ERROR_LINE = /^\s*(?:[A-Z]\w*)?Error\b(?:\s*\[\w+\])?:/;
const NODE_VERSION = /^Node\.js v\d+\.\d+\.\d+$/;
const UNREADABLE = /Cannot find module|EACCES|permission denied/i;

/**
 * The host's last words from its last stderr lines: the last error line if there is one (with a
 * hint when it runs as another uid and the error is one of a directory it cannot read), else the
 * last line that is not Node's version; '' when it said nothing.
 */
export function lastWords(lines: readonly string[], runAsUid?: number): string {
  const said = lines.map((l) => l.trim()).filter((l) => l && !NODE_VERSION.test(l));
  const error = said.findLast((l) => ERROR_LINE.test(l));
  const words = (error ?? said.at(-1) ?? '').slice(0, 500);
  if (error && runAsUid !== undefined && UNREADABLE.test(error))
    return `${words} (the agent host runs as uid ${runAsUid}, AGENT_HOST_UID: that uid must be able to enter every directory above the code and the data directory, and read them)`;
  return words;
}
