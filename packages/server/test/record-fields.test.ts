// The deployment record people read (GET /api/v1/assistants/{id}, the list, every verb that answers
// one) holds the spec's fields and nothing sealed: toRecord writes the fields out one by one, so this
// checks what it writes against the allowlist (docs/decisions/0033-get-throughput.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RECORD_FIELDS, shownWorkerUrl, toRecord } from '../src/domain/deployment.js';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activeDeployment, getRecord } from './helpers/api.js';

let h: Harness;
let key: string;
before(async () => ({ h, key } = await startHarnessWithKey()));
after(async () => h.close());

test('a record holds exactly the listed fields, each as stored, and no sealed secret', async () => {
  const id = await activeDeployment(h, key, 'byok');
  const stored = (await h.runtime.services.deployments.findById(id))!;
  assert.ok(stored.botTokenEnc && stored.modelApiKeyEnc && stored.gatewayTokenEnc, 'the deployment holds secrets');
  const record = toRecord(stored) as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(record), [...RECORD_FIELDS]);
  for (const f of RECORD_FIELDS) {
    const want = f === 'workerUrl' ? shownWorkerUrl(stored.workerUrl) : stored[f];
    assert.deepEqual(record[f], want, f);
  }
  // What the owner reads over HTTP: the same fields, none of the sealed ones.
  const answered = await getRecord(h, key, id);
  assert.deepEqual(Object.keys(answered).sort(), [...RECORD_FIELDS].sort());
  const text = JSON.stringify(answered);
  for (const secret of [stored.botTokenEnc, stored.modelApiKeyEnc, stored.gatewayTokenEnc])
    assert.ok(!text.includes(secret!), 'no sealed secret in the answer');
});
