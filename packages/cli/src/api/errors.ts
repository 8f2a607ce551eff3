// What can go wrong talking to the server, as values the commands turn into advice and exit codes.
// An answer the server refused is @berth/client's BerthApiError (its code from the one error table).

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
