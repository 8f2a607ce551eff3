// The real `berth` binary in a subprocess, as a user runs it: its own config home, the control
// plane's URL, and no API key unless the caller gives one. Nothing gives the CLI a terminal, so
// every command must finish on its own (a hang fails after 60 s with what it wrote to stderr).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const BERTH_BIN = resolve(import.meta.dirname, '../../../cli/bin/berth.js');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  firstStdoutAt?: number;
  endedAt: number;
  chunks: string[];
}

export interface BerthOptions {
  url: string;
  configHome: string;
  env?: Record<string, string | undefined>;
  input?: string;
}

export function runBerth(args: string[], opts: BerthOptions): Promise<Run> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    BERTH_URL: opts.url,
    XDG_CONFIG_HOME: opts.configHome,
    BERTH_API_KEY: undefined,
    ...opts.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BERTH_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const run: Run = { status: null, stdout: '', stderr: '', endedAt: 0, chunks: [] };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`berth ${args.join(' ')} hung:\n${run.stderr}`));
    }, 60_000);
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
