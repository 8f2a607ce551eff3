// Starts `berth-agent host` as a child process on a kernel-picked port and waits for it to listen.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { appendFileSync } from 'node:fs';
import { scratchDir } from '@berth/testkit/scratch-dir';

export const AGENT_BIN = resolve(import.meta.dirname, '../bin/berth-agent.js');

export async function spawnHost(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  // For profiling the host: BENCH_NODE_FLAGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" or "--trace-gc"
  // (the host's stderr is the bench's; its other stdout lines go to the file BENCH_STDOUT, if set).
  const flags = process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
  const child = spawn(process.execPath, [...flags, AGENT_BIN, 'host'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((ok, fail) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => fail(new Error('agent host did not start within 30 s')), 30_000);
    child.once('exit', (code) => fail(new Error(`agent host exited with ${code}`)));
    lines.on('line', (line) => {
      const m = /^berth-agent host listening on (\S+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      } else if (process.env.BENCH_STDOUT) appendFileSync(process.env.BENCH_STDOUT, `${line}\n`);
    });
  });
  return { child, url };
}

/**
 * A host whose memory a bench measures: started as the control plane starts hosts (the malloc
 * threshold of packages/server/src/workers/host-memory.ts), on a fresh data dir, with the Bot API at
 * `telegramRoot` and only warnings logged.
 */
export function spawnMeasuredHost(bench: string, adminToken: string, telegramRoot: string) {
  return spawnHost({
    ADMIN_TOKEN: adminToken,
    DATA_DIR: scratchDir(`berth-${bench}-bench-`),
    TELEGRAM_API_ROOT: telegramRoot,
    LOG_LEVEL: 'warn',
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
  });
}
