// The `berth` CLI as a user runs it: its own config home, the control plane's URL, and no API key
// unless the caller gives one. Nothing gives the CLI a terminal, so every command must finish on its
// own (a hang fails after 60 s with what it wrote to stderr).
//
// runBerth runs the command in this process through the CLI's run() (the bin calls the same
// function with the process's streams): a node process per command made the CLI's test files the
// slowest of the suite. spawnBerth runs the real bin, for the one file that proves the bin end to
// end (cli-first-steps.test.ts).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { run } from '../../../cli/src/run.js';

export const BERTH_BIN = resolve(import.meta.dirname, '../../../cli/bin/berth.js');
const HANG_MS = 60_000;

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  firstStdoutAt?: number;
  endedAt: number;
  chunks: string[];
}

export interface BerthOptions {
  url?: string;
  configHome?: string;
  env?: Record<string, string | undefined>;
  input?: string;
}

function envFor(opts: BerthOptions): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...(opts.url !== undefined ? { BERTH_URL: opts.url } : {}),
    ...(opts.configHome !== undefined ? { XDG_CONFIG_HOME: opts.configHome } : {}),
    BERTH_API_KEY: undefined,
    ...opts.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

/** Records what one stream of a run carries, each write as it was written. */
function capture(run: Run, which: 'stdout' | 'stderr'): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _enc, done) {
      const d = chunk.toString();
      if (which === 'stdout') {
        run.firstStdoutAt ??= Date.now();
        run.chunks.push(d);
      }
      run[which] += d;
      done();
    },
  });
}

/** `berth args…` in this process: the same run() the bin calls, on buffers instead of the process's streams. */
export async function runBerth(args: string[], opts: BerthOptions): Promise<Run> {
  const result: Run = { status: null, stdout: '', stderr: '', endedAt: 0, chunks: [] };
  const stdout = capture(result, 'stdout');
  const stderr = capture(result, 'stderr');
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`berth ${args.join(' ')} hung:\n${result.stderr}`)), HANG_MS);
  });
  try {
    const stdin = Readable.from([Buffer.from(opts.input ?? '')]);
    result.status = await Promise.race([run(args, { env: envFor(opts), stdout, stderr, stdin }), hung]);
  } finally {
    clearTimeout(timer);
  }
  result.endedAt = Date.now();
  return result;
}

/** `berth args…` in-process as `e`'s user (its control plane's URL and API key) with `configHome`; `input` on stdin. */
export function runBerthWithKey(
  e: { url: string; key: string },
  configHome: string,
  args: string[],
  input?: string,
): Promise<Run> {
  return runBerth(args, {
    url: e.url,
    configHome,
    env: { BERTH_API_KEY: e.key },
    ...(input !== undefined ? { input } : {}),
  });
}

/** `berth args…` as a separate process: the real bin, its exit code and its streams. */
export function spawnBerth(args: string[], opts: BerthOptions & { cwd?: string }): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BERTH_BIN, ...args], {
      env: envFor(opts),
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const run: Run = { status: null, stdout: '', stderr: '', endedAt: 0, chunks: [] };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`berth ${args.join(' ')} hung:\n${run.stderr}`));
    }, HANG_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      run.firstStdoutAt ??= Date.now();
      run.chunks.push(d);
      run.stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      run.stderr += d;
    });
    child.on('error', fail);
    child.on('close', (status) => {
      clearTimeout(timer);
      run.status = status;
      run.endedAt = Date.now();
      done(run);
    });
    child.stdin.end(opts.input ?? '');
  });
}
