// Exit codes of the user CLI, listed in `berth --help` so scripts can branch on them.
export const EXIT = {
  ok: 0,
  /** The server refused the request (INVALID_STATE, NOT_FOUND, …) or something else failed. */
  failed: 1,
  /** The command was called wrongly, or needed input it could not get without a terminal. */
  usage: 2,
  /** No API key, or the server refused the key. */
  auth: 3,
  /** The server could not be reached at BERTH_URL. */
  unreachable: 4,
  /** `status --watch` saw the deployment fail (or stop, so it will not become active). */
  deployFailed: 5,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  success (status --watch: the assistant is active)
  1  the server refused the request (its code and message are printed), or another error
  2  wrong usage, or input needed that cannot be asked for without a terminal
  3  no API key, or the key was refused: run berth login
  4  the server could not be reached at BERTH_URL
  5  status --watch: the deployment failed or was stopped`;
