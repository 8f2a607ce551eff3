// The test helpers' teardown (helpers/stop-all.ts): a stop that fails must not leave the stops
// after it undone. A control plane whose close threw left its fake cluster open, and the file's
// process lived on until the runner's 600 s timeout without printing why (a CI rehearsal).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stopAll } from './helpers/stop-all.js';

test('every stop runs even when one before it fails, and the failure is thrown', async () => {
  const ran: string[] = [];
  const stops = [
    () => ran.push('control plane'),
    () => {
      throw new Error('database still in use');
    },
    async () => ran.push('fake kubelet'),
    () => ran.push('fake API server'),
  ];
  await assert.rejects(stopAll(stops), /database still in use/);
  assert.deepEqual(ran, ['control plane', 'fake kubelet', 'fake API server']);
});

test('two failures are both named', async () => {
  const fail = (m: string) => () => Promise.reject(new Error(m));
  await assert.rejects(stopAll([fail('one'), fail('two')]), (err: AggregateError) => {
    assert.equal(err.message, 'one; two');
    assert.equal(err.errors.length, 2);
    return true;
  });
});
