// Starts `berth-agent host` as a child process on a kernel-picked port and waits for it to listen.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

export const AGENT_BIN = resolve(import.meta.dirname, '../bin/berth-agent.js');

export async function spawnHost(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [AGENT_BIN, 'host'], {
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
      }
    });
  });
  return { child, url };
}
