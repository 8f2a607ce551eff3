// Where one run of the CLI reads and writes: the process's streams and environment when the bin
// runs it, a test's buffers when it runs commands in-process (a node process per command made the
// CLI's test files the slowest of the suite). Kept in AsyncLocalStorage rather than passed to every
// print helper, so two runs awaited side by side in one process each keep their own output.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** How the user's commands reach the server (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
}

const current = new AsyncLocalStorage<CliIo>();

export const processIo = (): CliIo => ({
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});

/** The streams of the run in progress (the process's outside of one). */
export function io(): CliIo {
  return current.getStore() ?? processIo();
}

export function withIo<T>(given: CliIo, fn: () => Promise<T>): Promise<T> {
  return current.run(given, fn);
}

/** A line of result on stdout. */
export const out = (line: string) => io().stdout.write(`${line}\n`);
/** A line for the person on stderr. */
export const err = (line: string) => io().stderr.write(`${line}\n`);
