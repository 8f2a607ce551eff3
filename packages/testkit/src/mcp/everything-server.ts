// The reference MCP server from the npm registry (@modelcontextprotocol/server-everything), run as
// its own process in its streamableHttp (or old sse) mode and held to loopback (loopback-only.mjs).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

export interface EverythingServer {
  /** The MCP endpoint: /mcp (streamableHttp) or /sse (sse). */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startEverythingServer(
  mode: 'streamableHttp' | 'sse' = 'streamableHttp',
): Promise<EverythingServer> {
  const entry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
  const preload = fileURLToPath(new URL('./loopback-only.mjs', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--import', preload, entry, mode], {
    env: { ...process.env, PORT: '0', NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /BERTH_LOOPBACK_PORT (\d+)/.exec(seen);
      if (m) {
        child.stderr!.off('data', onData);
        child.stderr!.resume();
        resolve(Number(m[1]));
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${seen.slice(-500)}`)));
  });
  return {
    port,
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
