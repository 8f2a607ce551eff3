// Every answer the API gives must be in its OpenAPI document: this provokes the errors each
// operation can answer (no key, unknown id, broken bodies, wrong state, failing worker, API off)
// and checks that the operation documents that status with that code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './helpers/harness.js';
import { activeDeployment, activationBody, purchase } from './helpers/api.js';

let h: Harness;
let off: Harness;
let doc: any;
let key: string;
let fresh: string;
let active: string;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const seen = new Set<string>();

before(async () => {
  h = await startHarness();
  off = await startHarness({ ASSISTANTS_API_V1_ENABLED: 'false' });
  doc = (await h.inject({ method: 'GET', url: '/api/openapi' })).json();
  key = await h.key();
  fresh = (await purchase(h, key)).deploymentId;
  active = await activeDeployment(h, key);
});
after(async () => Promise.all([h.close(), off.close()]));

type Op = { method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'; path: string; body?: unknown };

/** The assistants API's operations (the account routes have their own suite: accounts.test.ts). */
function operations(id: string): Op[] {
  return Object.entries<any>(doc.paths)
    .filter(([path]) => path.startsWith('/api/v1/'))
    .flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => ({
        method: m.toUpperCase() as Op['method'],
        path: path.replace('{deploymentId}', id),
        template: path,
      })),
    );
}

async function expectDocumented(
  app: Harness,
  op: Op,
  init: { headers?: Record<string, string>; payload?: string } = {},
): Promise<{ status: number; code: string | undefined }> {
  const res = await app.inject({ method: op.method, url: op.path, ...init });
  const template = Object.keys(doc.paths).find(
    (p) =>
      new RegExp(`^${p.replace('{deploymentId}', '[^/]+')}$`).test(op.path) && doc.paths[p][op.method.toLowerCase()],
  )!;
  const documented = doc.paths[template][op.method.toLowerCase()].responses[String(res.statusCode)];
  assert.ok(documented, `${op.method} ${template} answered ${res.statusCode}, which it does not document: ${res.body}`);
  const code = res.statusCode >= 400 ? res.json().error?.code : undefined;
  if (code) {
    const allowed = JSON.stringify(documented.content['application/json'].schema.properties.error.properties.code);
    assert.ok(allowed.includes(`"${code}"`), `${op.method} ${template}: ${res.statusCode} ${code} is not documented`);
    seen.add(`${op.method} ${template} ${code}`);
  }
  return { status: res.statusCode, code };
}

const json = (k: string | undefined) => ({ 'content-type': 'application/json', ...(k ? { 'x-api-key': k } : {}) });

test('no key, a wrong key, and a Bearer token where only X-API-Key counts: documented 401s', async () => {
  for (const op of operations(fresh)) {
    assert.equal((await expectDocumented(h, op)).code, 'UNAUTHORIZED');
    assert.equal((await expectDocumented(h, op, { headers: { 'x-api-key': 'bk_wrong' } })).code, 'UNAUTHORIZED');
    // The OpenAI-compatible routes take the key as a Bearer token too (chat, models, responses).
    if (/\/(chat\/completions|models|responses(\/[^/]+)?)$/.test(op.path)) continue;
    const bearer = { authorization: `Bearer ${key}` };
    assert.equal((await expectDocumented(h, op, { headers: bearer })).code, 'UNAUTHORIZED');
  }
});

test('an unknown or malformed deployment id: documented 404s', async () => {
  for (const id of [UNKNOWN, 'not-a-uuid']) {
    for (const op of operations(id).filter((o) => o.path.includes(id))) {
      const payload = op.method === 'GET' ? undefined : '{}';
      const r = await expectDocumented(h, op, { headers: json(key), payload });
      assert.ok(['NOT_FOUND', 'INVALID_REQUEST'].includes(r.code!), `${op.method} ${op.path}: ${r.code}`);
    }
  }
});

test('a body that is not JSON (400), and one far too large (413): documented on every operation that reads one', async () => {
  for (const op of operations(fresh).filter((o) => o.method !== 'GET')) {
    await expectDocumented(h, op, { headers: json(key), payload: '{"broken' });
    await expectDocumented(h, op, { headers: json(key), payload: `{"x":"${'a'.repeat(1_100_000)}"}` });
  }
});

test('wrong state, not ready, and a worker that is gone: documented 409s and 502s', async () => {
  const p = (path: string) => path.replace('{id}', fresh);
  await expectDocumented(h, { method: 'POST', path: p('/api/v1/assistants/{id}/redeploy') }, { headers: json(key) });
  await expectDocumented(
    h,
    { method: 'POST', path: p('/api/v1/assistants/{id}/chat/completions') },
    { headers: json(key), payload: JSON.stringify({ model: 'assistant-agent', messages: [] }) },
  );
  const chat = { method: 'POST' as const, path: `/api/v1/assistants/${active}/chat/completions` };
  const body = JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal((await expectDocumented(h, chat, { headers: json(key), payload: body })).code, 'BAD_GATEWAY');
  assert.equal((await expectDocumented(h, chat, { headers: json(key), payload: '' })).code, 'INVALID_REQUEST');
  await expectDocumented(
    h,
    { method: 'POST', path: `/api/v1/assistants/${active}/activate` },
    { headers: json(key), payload: JSON.stringify(activationBody('byok')) },
  );
  h.workers.deleteStatus = 500;
  try {
    await expectDocumented(h, { method: 'POST', path: `/api/v1/assistants/${active}/stop` }, { headers: json(key) });
    await expectDocumented(h, { method: 'DELETE', path: `/api/v1/assistants/${active}` }, { headers: json(key) });
  } finally {
    h.workers.deleteStatus = undefined;
  }
  for (const code of ['ASSISTANT_NOT_READY', 'BAD_GATEWAY', 'INVALID_STATE', 'WORKER_DELETE_FAILED']) {
    assert.ok(
      [...seen].some((s) => s.endsWith(` ${code}`)),
      `${code} was provoked`,
    );
  }
});

test('with the API switched off, every operation answers its documented 404 API_DISABLED', async () => {
  for (const op of operations(fresh))
    assert.equal((await expectDocumented(off, op)).code, 'API_DISABLED', `${op.method} ${op.path}`);
});
