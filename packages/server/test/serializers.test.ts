// Responses are written from schemas simplified for writing (http/serializers.ts): the same JSON as
// the full schemas give, without validating each value against every branch of an `anyOf`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fastJsonStringify from 'fast-json-stringify';
import { DeploymentRecordSchema } from '../src/deployments/schemas/deployment.js';
import { forWriting } from '../src/platform/http/serializers.js';

const record = {
  id: '0b6f4c1e-8a52-4f1e-9d3a-2f6c1b7e9a10',
  userId: 'u-1',
  organizationId: null,
  name: 'Помощник 助手 🚀 "quoted" \\ back',
  modelProvider: 'openai',
  modelId: 'gpt-4o-mini',
  channelType: 'telegram',
  apiMode: 'managed',
  workerName: 'berth-0b6f4c1e',
  workerUrl: 'http://127.0.0.1:8080/agents/berth-0b6f4c1e',
  status: 'active',
  statusMessage: null,
  paymentStatus: 'paid',
  paymentSubscriptionId: 'sub_1QabcdEFGHijklMNopqrSTuv',
  currentPeriodEnd: '2026-12-24T00:00:00.000Z',
  canceledAt: null,
  isPrebuy: false,
  userCallbackUrl: null,
  createdAt: '2026-11-24T05:00:00.000Z',
  updatedAt: '2026-11-24T05:00:01.000Z',
};

test('the simplified schema writes what the full one writes, nulls, enums and text alike', () => {
  const full = fastJsonStringify(DeploymentRecordSchema);
  const simple = fastJsonStringify(forWriting(DeploymentRecordSchema) as typeof DeploymentRecordSchema);
  const variants = [
    record,
    {
      ...record,
      organizationId: 'org-1',
      statusMessage: 'Deploy failed: the worker did not start',
      canceledAt: record.createdAt,
    },
    {
      ...record,
      userCallbackUrl: 'https://example.com/hook?a=1&b=2',
      workerUrl: null,
      status: 'failed',
      apiMode: 'byok',
    },
  ];
  for (const v of variants) {
    assert.equal(simple(v), full(v));
    assert.deepEqual(JSON.parse(simple(v)), v);
  }
});

test('only anyOf of primitives is rewritten: enums and nullable strings become type lists', () => {
  const simple = forWriting(DeploymentRecordSchema) as { properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(simple.properties.userCallbackUrl!.type, ['string', 'null']);
  assert.equal(simple.properties.status!.type, 'string');
  assert.equal(simple.properties.status!.anyOf, undefined);
  const nested = { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'null' }] };
  assert.deepEqual(forWriting(nested), nested);
});
