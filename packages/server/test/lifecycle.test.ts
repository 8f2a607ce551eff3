// The lifecycle state machine: every status × every user operation and system event, checked
// against an independent table of what the spec and docs/decisions/0011 say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideEvent,
  decideOperation,
  deriveStatus,
  desiredOf,
  wantsWorker,
  DESIRED,
  SYSTEM_EVENTS,
  type Decision,
  type Observed,
  type SystemEvent,
} from '../src/domain/lifecycle.js';
import { STATUSES, type DeploymentStatus } from '../src/domain/deployment.js';
import type { Operation } from '../src/domain/transitions.js';
import { everyOperationCase } from './helpers/operation-cases.js';

const sample = (kind: SystemEvent['kind'], recoverable = true): SystemEvent => {
  switch (kind) {
    case 'deploy_failed':
      return { kind, reason: 'Telegram rejected the bot token (401 Unauthorized).' };
    case 'deadline_passed':
      return { kind, reason: 'the worker was not ready within 120 s' };
    case 'worker_vanished':
      return { kind, recoverable, reason: 'the worker process exited' };
    default:
      return { kind } as SystemEvent;
  }
};

type Want = { status: DeploymentStatus; bump: boolean; message: RegExp | null } | null;

// Written out by hand, not derived from the implementation.
function expectedEvent(e: SystemEvent, status: DeploymentStatus): Want {
  switch (e.kind) {
    case 'deploy_succeeded':
      return status === 'deploying' ? { status: 'active', bump: false, message: null } : null;
    case 'deploy_failed':
    case 'deadline_passed':
      return status === 'deploying' ? { status: 'failed', bump: false, message: /^Deploy failed: / } : null;
    case 'subscription_canceled':
      return ['active', 'deploying', 'failed'].includes(status)
        ? { status: 'stopped', bump: true, message: /subscription was canceled/ }
        : null;
    case 'subscription_past_due':
      return null;
    case 'worker_vanished':
      if (status !== 'active' && status !== 'deploying') return null;
      return e.recoverable
        ? { status: 'deploying', bump: true, message: /starting it again/ }
        : { status: 'failed', bump: false, message: /process exited/ };
    case 'host_restarted':
      return status === 'active' ? { status: 'deploying', bump: true, message: /host restarted/ } : null;
  }
}

function check(res: Decision, want: Want, label: string) {
  assert.equal(res.ok, true, label);
  if (!res.ok) return;
  if (want === null) return assert.equal(res.change, null, label);
  assert.ok(res.change, label);
  assert.equal(res.change.status, want.status, label);
  assert.equal(res.change.bumpGeneration, want.bump, label);
  assert.equal(res.change.desired, desiredOf(want.status), label);
  if (want.message === null) assert.equal(res.change.statusMessage, null, label);
  else assert.match(res.change.statusMessage ?? '', want.message, label);
  // Leaving a running state always invalidates the worker URL.
  if (want.status !== 'active') assert.equal(res.change.clearWorkerUrl, true, label);
}

test('every system event in every status follows the table', () => {
  let cases = 0;
  for (const kind of SYSTEM_EVENTS) {
    for (const recoverable of kind === 'worker_vanished' ? [true, false] : [true]) {
      for (const status of STATUSES) {
        const e = sample(kind, recoverable);
        check(
          decideEvent(e, { status }),
          expectedEvent(e, status),
          `${kind}${recoverable ? '' : ' (final)'} in ${status}`,
        );
        cases++;
      }
    }
  }
  assert.equal(cases, (SYSTEM_EVENTS.length + 1) * STATUSES.length);
});

test('every user operation in every state: rejected as the spec says, or the right change', () => {
  const cases = everyOperationCase();
  for (const { op, state, label } of cases) {
    const res = decideOperation(op, state);
    // Stop and delete are always allowed (idempotent): never a 409.
    if (op === 'stop' || op === 'delete') assert.equal(res.ok, true, label);
    if (!res.ok) continue; // which ones are rejected is test/transitions.test.ts
    if (op === 'update') {
      assert.equal(res.change, null, label);
      continue;
    }
    const c = res.change!;
    assert.equal(c.bumpGeneration, true, label);
    assert.equal(c.clearWorkerUrl, true, label);
    if (op === 'stop') assert.deepEqual([c.status, c.desired], ['stopped', 'stopped'], label);
    if (op === 'delete') assert.deepEqual([c.status, c.desired], [state.status, 'deleted'], label);
    if (op === 'activate' || op === 'redeploy')
      assert.deepEqual([c.status, c.desired, c.statusMessage], ['deploying', 'running', null], label);
  }
  assert.equal(cases.length, 5 * 5 * 2 * 4 * 2);
});

test('status derived from desired and observed state', () => {
  const observed: Observed[] = ['absent', 'starting', 'ready', 'failed'];
  for (const desired of DESIRED) {
    for (const o of observed) {
      for (const prior of STATUSES) {
        const got = deriveStatus(desired, o, prior);
        const label = `${desired}/${o}/${prior}`;
        if (desired === 'deleted') assert.equal(got, 'deleted', label);
        else if (desired === 'stopped')
          assert.equal(got, prior === 'purchased' || prior === 'failed' ? prior : 'stopped', label);
        else assert.equal(got, o === 'ready' ? 'active' : o === 'failed' ? 'failed' : 'deploying', label);
      }
    }
  }
});

test('a worker is wanted only while the desire is running', () => {
  assert.deepEqual(DESIRED.filter(wantsWorker), ['running']);
  assert.deepEqual(
    STATUSES.filter((s) => desiredOf(s) === 'running'),
    ['deploying', 'active'],
  );
});

test('every change keeps the status what desired and observed state say it is', () => {
  // The invariant the store keeps (0011): a running desire is `active` exactly when its worker was
  // seen ready and `deploying` otherwise; a stopped desire is one of the three resting statuses.
  const OBSERVED: Observed[] = ['absent', 'starting', 'ready', 'failed'];
  const resting = new Set<DeploymentStatus>(['purchased', 'stopped', 'failed']);
  let checked = 0;
  for (const status of STATUSES) {
    for (const before of OBSERVED) {
      const decisions: Array<[string, Decision]> = [];
      for (const kind of SYSTEM_EVENTS) {
        decisions.push([kind, decideEvent(sample(kind, true), { status })]);
        if (kind === 'worker_vanished') decisions.push([`${kind}/final`, decideEvent(sample(kind, false), { status })]);
      }
      for (const op of ['activate', 'redeploy', 'stop'] as Operation[])
        decisions.push([op, decideOperation(op, { status, isPrebuy: true, paymentStatus: 'paid', configured: true })]);
      for (const [what, d] of decisions) {
        if (!d.ok || !d.change) continue;
        const c = d.change;
        const observed = c.observed ?? before;
        const label = `${status}/${before} + ${what} → ${c.status}/${c.desired}/${observed}`;
        assert.notEqual(c.desired, 'deleted', label);
        if (c.bumpGeneration) assert.equal(observed, 'absent', `${label}: a new generation has no worker yet`);
        if (c.desired === 'running') assert.equal(c.status, deriveStatus('running', observed, status), label);
        else assert.ok(resting.has(c.status), label);
        assert.equal(wantsWorker(c.desired), c.status === 'deploying' || c.status === 'active', label);
        checked++;
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} changes checked`);
});
