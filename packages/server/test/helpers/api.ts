// Small helpers that drive the public API the way a client would.
import assert from 'node:assert/strict';
import type { Harness } from './harness.js';
import { MODEL_KEY, uniqueBotToken } from './harness.js';

export type Mode = 'byok' | 'managed' | 'unlimited';

export async function purchase(h: Harness, key: string, apiMode: Mode = 'byok') {
  const res = await h.inject({
    method: 'POST',
    url: '/api/v1/assistants/purchase',
    headers: { 'x-api-key': key },
    payload: { apiMode },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { deploymentId: string; checkoutUrl: string };
}

export async function pay(h: Harness, checkoutUrl: string) {
  const path = new URL(checkoutUrl).pathname;
  const res = await h.inject({ method: 'POST', url: `${path}/complete` });
  assert.equal(res.statusCode, 200, res.body);
}

/** A fresh bot token each call unless `extra` names one. */
export function activationBody(mode: Mode, extra: Record<string, unknown> = {}) {
  return mode === 'byok'
    ? {
        name: 'Helper',
        modelProvider: 'openai',
        modelId: 'gpt-4o-mini',
        messengerBotToken: uniqueBotToken(),
        modelApiKey: MODEL_KEY,
        ...extra,
      }
    : { name: 'Helper', modelId: 'openai/gpt-4o-mini', messengerBotToken: uniqueBotToken(), ...extra };
}

/** Activates deployment `id` with the usual body for `mode`; the answer is the caller's to check. */
export function activate(
  h: Harness,
  key: string,
  id: string,
  mode: Mode = 'byok',
  extra: Record<string, unknown> = {},
) {
  return h.inject({
    method: 'POST',
    url: `/api/v1/assistants/${id}/activate`,
    headers: { 'x-api-key': key },
    payload: activationBody(mode, extra),
  });
}

/** purchase → pay → activate → wait for the deploy to settle. */
export async function activeDeployment(
  h: Harness,
  key: string,
  mode: Mode = 'byok',
  extra: Record<string, unknown> = {},
) {
  const { deploymentId, checkoutUrl } = await purchase(h, key, mode);
  await pay(h, checkoutUrl);
  const res = await activate(h, key, deploymentId, mode, extra);
  assert.equal(res.statusCode, 200, res.body);
  await h.runtime.idle();
  return deploymentId;
}

export async function getRecord(h: Harness, key: string, id: string) {
  const res = await h.inject({ method: 'GET', url: `/api/v1/assistants/${id}`, headers: { 'x-api-key': key } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** Asks, as the owner with `key`, to stop deployment `id` (POST …/stop), which must answer 200. */
export async function stopAssistant(h: Harness, key: string, id: string) {
  const res = await h.inject({ method: 'POST', url: `/api/v1/assistants/${id}/stop`, headers: { 'x-api-key': key } });
  assert.equal(res.statusCode, 200, res.body);
}

/** Deletes deployment `id` as the owner with `key`, which must answer 200. */
export async function deleteAssistant(h: Harness, key: string, id: string) {
  const res = await h.inject({ method: 'DELETE', url: `/api/v1/assistants/${id}`, headers: { 'x-api-key': key } });
  assert.equal(res.statusCode, 200, res.body);
}

export function assertError(res: { statusCode: number; json(): any; body: string }, status: number, code: string) {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode}: ${res.body}`);
  const body = res.json();
  assert.equal(body.error?.code, code, res.body);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
  assert.deepEqual(Object.keys(body).sort(), ['error']);
}
