// Turns any failure into one line on stderr that says what to do next, and its exit code.
import { io } from '../io.js';
import { BerthApiError } from '@berth/client';
import { ConnectionError, NoKeyError } from '../api/errors.js';
import { UsageError } from '../config/env.js';
import { EXIT } from './exit-codes.js';

export function reportError(err: unknown): number {
  const say = (text: string) => io().stderr.write(`berth: ${text}\n`);
  if (err instanceof NoKeyError) {
    say(`${err.message}: run berth login (or set BERTH_API_KEY)`);
    return EXIT.auth;
  }
  if (err instanceof ConnectionError) {
    say(`${err.message}: is the server running at BERTH_URL? (BERTH_URL=${err.url})`);
    return EXIT.unreachable;
  }
  if (err instanceof BerthApiError) {
    if (err.code === 'UNAUTHORIZED') {
      say(`the server refused the API key (${err.message}): run berth login with a valid key (or fix BERTH_API_KEY)`);
      return EXIT.auth;
    }
    if (err.code === 'NOT_FOUND') {
      say(`${err.code}: ${err.message} (berth assistants list shows your assistants)`);
      return EXIT.failed;
    }
    if (err.code === 'API_DISABLED') {
      say(`${err.code}: ${err.message} (the operator turned the API off on this server)`);
      return EXIT.failed;
    }
    // INVALID_STATE, INVALID_INPUT, INVALID_REQUEST, …: the server's message already says why.
    say(`${err.code}: ${err.message}`);
    return EXIT.failed;
  }
  if (err instanceof UsageError) {
    say(`${err.message} (see berth --help)`);
    return EXIT.usage;
  }
  say((err as Error)?.message ?? String(err));
  return EXIT.failed;
}
