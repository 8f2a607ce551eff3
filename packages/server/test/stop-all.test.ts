// The test helpers' teardown (helpers/stop-all.ts): a stop that fails must not leave the stops
// after it undone. A control plane whose close threw left its fake cluster open, and the file's
// process lived on until the runner's 600 s timeout without printing why (a CI rehearsal).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orStop, stopAfter, stopAll } from './helpers/stop-all.js';

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

test('a start that fails after its first part is up stops that part, and its failure is thrown', async () => {
  const stopped: string[] = [];
  const harness = { close: () => stopped.push('harness') };
  const failing = orStop(harness.close, () => Promise.reject(new Error('the deploy failed: bad token')));
  await assert.rejects(failing, /the deploy failed: bad token/);
  assert.deepEqual(stopped, ['harness']);
  // A stop that fails too does not hide why the start failed.
  const both = orStop(
    () => Promise.reject(new Error('already closed')),
    () => Promise.reject(new Error('no key')),
  );
  await assert.rejects(both, /no key/);
  assert.equal(await orStop(harness.close, async () => 'key_123'), 'key_123');
  assert.deepEqual(stopped, ['harness'], 'a start that finished is left to its caller');
});

test('what a test started is stopped after it, the last started first', async (t) => {
  const stopped: string[] = [];
  await t.test('a test with a receiver, then a harness that calls it, then a router', (tt) => {
    stopAfter(tt, () => stopped.push('receiver'));
    stopAfter(tt, async () => stopped.push('harness'));
    stopAfter(tt, () => stopped.push('router'));
  });
  assert.deepEqual(stopped, ['router', 'harness', 'receiver']);
});
