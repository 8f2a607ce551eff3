// What can go wrong talking to the server, as values the commands turn into advice and exit codes.

/** The server answered with the spec's error envelope (or something that is not JSON). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The server could not be reached at all. */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach ${url} (${reason})`);
  }
}

/** No key in BERTH_API_KEY nor in the config file. */
export class NoKeyError extends Error {}
