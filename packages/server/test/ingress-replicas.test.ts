// Any replica accepts a webhook (DESIGN §9.1): two control planes on one PostgreSQL share the
// store, so an update accepted by one is a repeat at the other, one update POSTed to both at once
// is stored once, and it reaches its worker once whichever replica's runner delivers it.
// PostgreSQL only (several replicas need it; CI's second pass).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { FakeWhatsApp, metaSignature } from '@berth/testkit';
import { PG_URL, databaseEnv } from './helpers/database.js';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';
import { capturingLogger } from './helpers/logs.js';
import { createRuntime, loadConfig, type Runtime } from '../src/index.js';

const skip = PG_URL ? false : 'PostgreSQL only (runs under scripts/with-postgres.sh)';
let h: Harness;
let key: string;
let second: Runtime;
let secondDir: string;
let wa: FakeWhatsApp;
const urls: string[] = [];

before(async () => {
  if (skip) return;
  ({ h, key } = await startHarnessWithKey());
  secondDir = mkdtempSync(join(tmpdir(), 'berth-replica-'));
  second = await createRuntime(
    loadConfig({ DATA_DIR: secondDir, PUBLIC_BASE_URL: 'http://berth.test', ...databaseEnv({ url: h.databaseUrl }) }),
    { workers: h.workers, logger: capturingLogger('warn').logger, runner: { pollMs: 50, leaseMs: 5000 } },
  );
  for (const app of [h.runtime.app, second.app]) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    urls.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  }
  wa = await new FakeWhatsApp().start();
});
after(async () => {
  if (skip) return;
  await second.close();
  rmSync(secondDir, { recursive: true, force: true });
  await h.close();
  await wa.stop();
});

test('one update POSTed to both replicas at once is stored once and delivered once', { skip }, async () => {
  const id = await activeDeployment(h, key);
  const n = wa.addNumber();
  const put = await h.inject({
    method: 'PUT',
    url: `/api/v1/assistants/${id}/channels/whatsapp`,
    headers: { 'x-api-key': key },
    payload: { phoneNumberId: n.phoneNumberId, accessToken: n.accessToken, appSecret: n.appSecret },
  });
  const path = new URL(put.json().data.details.webhookUrl).pathname;
  const { id: wamid, payload } = wa.messagePayload(
    n.phoneNumberId,
    { waId: '34600111222', name: 'Eva' },
    { text: 'hola' },
  );
  const raw = JSON.stringify(payload);
  const taken = new Promise<void>((resolve) => {
    h.workers.onUpdate = (u) => u.body.updateKey === wamid && resolve();
  });
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      fetch(`${urls[i % 2]}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(n.appSecret, raw) },
        body: raw,
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
    ),
  );
  assert.deepEqual(
    answers.map((a) => a.status),
    Array(8).fill(200),
  );
  assert.equal(
    answers.reduce((sum, a) => sum + a.body.data.accepted, 0),
    1,
  );
  await taken;
  await Promise.all([h.runtime.idle(), second.idle()]);
  assert.equal(h.workers.updates.filter((u) => u.body.updateKey === wamid).length, 1);
});
