import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transition, type Operation } from '../src/domain/transitions.js';
import { everyOperationCase } from './helpers/operation-cases.js';

// The spec's table, written out independently of the implementation.
function expected(op: Operation, status: string, isPrebuy: boolean, pay: string, configured: boolean): string | false {
  switch (op) {
    case 'stop':
      return 'stopped';
    case 'delete':
      return 'removed';
    case 'update':
      return ['purchased', 'stopped', 'failed'].includes(status) ? status : false;
    case 'activate':
      return status === 'purchased' && isPrebuy && pay === 'paid' ? 'deploying' : false;
    case 'redeploy':
      return ['active', 'failed', 'stopped'].includes(status) && (pay === 'paid' || pay === 'past_due') && configured
        ? 'deploying'
        : false;
  }
}

test('every operation in every state follows the spec table', () => {
  const cases = everyOperationCase();
  for (const { op, state, label } of cases) {
    const res = transition(op, state);
    const want = expected(op, state.status, state.isPrebuy, state.paymentStatus, state.configured);
    if (want === false) {
      assert.equal(res.ok, false, label);
      assert.ok(!res.ok && res.reason.length > 10, label);
    } else {
      assert.deepEqual(res, { ok: true, next: want }, label);
    }
  }
  assert.equal(cases.length, 5 * 5 * 2 * 4 * 2);
});

test('an unpaid activation says checkout is not completed', () => {
  const res = transition('activate', {
    status: 'purchased',
    isPrebuy: true,
    paymentStatus: 'pending',
    configured: false,
  });
  assert.ok(!res.ok && /checkout is not completed/i.test(res.reason));
});
