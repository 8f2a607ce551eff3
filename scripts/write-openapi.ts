// Writes the OpenAPI document of a live control plane (real routes, real store on a throwaway
// SQLite file) to a file, so Redocly and the client generator read exactly what /api/openapi serves.
// Usage: node --conditions=berth-source --import tsx scripts/write-openapi.ts [out.json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRuntime, loadConfig, type WorkersPort } from '@berth/server';

// Describing the API runs no assistant: a backend that refuses keeps the agent host unstarted.
const noWorkers: WorkersPort = {
  name: 'none',
  createWorker: () => Promise.reject(new Error('write-openapi runs no workers')),
  deleteWorker: () => Promise.resolve('not_found'),
  workerHealth: () => Promise.resolve({ ready: false, failed: true, reason: 'write-openapi runs no workers' }),
  listWorkers: () => Promise.resolve({ names: [] }),
  applySettings: () => Promise.resolve('not_found'),
  assistantCall: () => Promise.resolve({ status: 404, json: undefined }),
};

/** The served document; the base URL is fixed so the output does not depend on the machine. */
export async function liveOpenApiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-openapi-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://127.0.0.1:8080', LOG_LEVEL: 'silent' });
    const runtime = await createRuntime(config, { workers: noWorkers });
    try {
      const res = await runtime.app.inject({ method: 'GET', url: '/api/openapi' });
      if (res.statusCode !== 200) throw new Error(`GET /api/openapi answered ${res.statusCode}: ${res.body}`);
      return res.json();
    } finally {
      await runtime.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const out = resolve(process.argv[2] ?? 'openapi.json');
  writeFileSync(out, `${JSON.stringify(await liveOpenApiDocument(), null, 2)}\n`);
  console.error(`wrote ${out}`);
}
