// The operator's suspension in the one state machine (domain/lifecycle.ts): every owner operation
// in every status, and resume.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideOperation, decideOperatorAction, type LifecycleState } from '../src/domain/lifecycle.js';
import { STATUSES } from '../src/domain/deployment.js';

const base: LifecycleState = { status: 'stopped', isPrebuy: false, paymentStatus: 'paid', configured: true };

test('a suspended deployment refuses activate, update and redeploy in every status, saying why', () => {
  for (const status of STATUSES)
    for (const op of ['activate', 'update', 'redeploy'] as const) {
      const d = decideOperation(op, { ...base, status, suspendedReason: 'abuse' });
      assert.equal(d.ok, false, `${op} in ${status}`);
      assert.match(
        (d as { reason: string }).reason,
        /^Suspended by the operator: abuse\. .*until the operator resumes it/,
      );
    }
});

test('stop keeps the suspension message; delete is allowed', () => {
  const stop = decideOperation('stop', { ...base, suspendedReason: 'abuse' });
  assert.equal(stop.ok && stop.change?.statusMessage, 'Suspended by the operator: abuse');
  assert.equal(stop.ok && stop.change?.desired, 'stopped');
  const del = decideOperation('delete', { ...base, suspendedReason: 'abuse' });
  assert.equal(del.ok && del.change?.desired, 'deleted');
});

test('suspend stops whatever runs; resume restarts only what can run', () => {
  for (const status of STATUSES) {
    const s = decideOperatorAction({ kind: 'suspend', reason: 'r' }, { ...base, status });
    assert.ok(s.ok && s.change);
    assert.equal(s.change.status, 'stopped');
    assert.equal(s.change.desired, 'stopped');
    assert.equal(s.change.suspendedReason, 'r');
    assert.equal(s.change.bumpGeneration, true);
  }
  assert.equal(decideOperatorAction({ kind: 'resume' }, base).ok, false, 'not suspended');
  const run = decideOperatorAction({ kind: 'resume' }, { ...base, suspendedReason: 'r' });
  assert.ok(run.ok && run.change);
  assert.deepEqual([run.change.status, run.change.desired, run.change.suspendedReason], ['deploying', 'running', null]);
  const unpaid = decideOperatorAction({ kind: 'resume' }, { ...base, paymentStatus: 'canceled', suspendedReason: 'r' });
  assert.ok(unpaid.ok && unpaid.change);
  assert.deepEqual([unpaid.change.status, unpaid.change.desired], ['stopped', 'stopped']);
  const slot = decideOperatorAction({ kind: 'resume' }, { ...base, isPrebuy: true, suspendedReason: 'r' });
  assert.ok(slot.ok && slot.change);
  assert.equal(slot.change.status, 'purchased');
});
