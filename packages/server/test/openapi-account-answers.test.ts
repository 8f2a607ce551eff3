// The account routes' answers are in the OpenAPI document too (openapi-answers.test.ts does the
// assistants API): no credentials, a cookie write without CSRF, broken bodies, unknown ids.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './helpers/harness.js';
import { signUp, type Browser } from './helpers/accounts.js';

let h: Harness;
let doc: any;
let b: Browser;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

before(async () => {
  h = await startHarness();
  doc = (await h.inject({ method: 'GET', url: '/api/openapi' })).json();
  b = await signUp(h, 'documented@example.com');
});
after(async () => h.close());

type Op = { method: string; template: string; path: string; public: boolean };

function operations(): Op[] {
  return (
    Object.entries<any>(doc.paths)
      // The account routes: not the versioned API, nor the server's version (test/readiness.test.ts).
      .filter(([path]) => !path.startsWith('/api/v1/') && path !== '/api/version')
      .flatMap(([template, ops]) =>
        Object.entries<any>(ops).map(([m, op]) => ({
          method: m.toUpperCase(),
          template,
          path: template.replace(/\{[^}]+\}/g, UNKNOWN),
          public: op.security.length === 0,
        })),
      )
  );
}

async function documented(op: Op, init: { headers?: Record<string, string>; payload?: string } = {}) {
  const res = await h.inject({ method: op.method as 'GET', url: op.path, ...init });
  const answer = doc.paths[op.template][op.method.toLowerCase()].responses[String(res.statusCode)];
  assert.ok(answer, `${op.method} ${op.template} answered ${res.statusCode}, which it does not document: ${res.body}`);
  if (res.statusCode >= 400) {
    const code = res.json().error.code;
    const allowed = JSON.stringify(answer.content['application/json'].schema.properties.error.properties.code);
    assert.ok(
      allowed.includes(`"${code}"`),
      `${op.method} ${op.template}: ${res.statusCode} ${code} is not documented`,
    );
    return code as string;
  }
  return undefined;
}

test('there are twenty-one account operations, four of them public', () => {
  assert.equal(operations().length, 21);
  assert.deepEqual(
    operations()
      .filter((o) => o.public)
      .map((o) => o.template)
      .sort(),
    ['/api/auth/login', '/api/auth/password-reset', '/api/auth/password-reset/complete', '/api/auth/signup'],
  );
});

test('no credentials: documented 401s (public ones: documented 400s for the missing body)', async () => {
  for (const op of operations()) {
    const code = await documented(op);
    assert.equal(code, op.public ? 'INVALID_REQUEST' : 'UNAUTHORIZED', `${op.method} ${op.template}`);
  }
});

test('a cookie write without the CSRF token: documented 403s', async () => {
  for (const op of operations().filter((o) => !o.public && o.method !== 'GET')) {
    assert.equal(await documented(op, { headers: b.headers() }), 'FORBIDDEN', `${op.method} ${op.template}`);
  }
});

test('broken and unknown bodies, unknown ids: documented answers', async () => {
  const json = { ...b.headers({ write: true }), 'content-type': 'application/json' };
  for (const op of operations().filter((o) => o.method !== 'GET' && !o.template.startsWith('/api/auth/logout'))) {
    await documented(op, { headers: json, payload: '{"broken' });
    await documented(op, { headers: json, payload: '{"unknown":1}' });
  }
  for (const op of operations().filter((o) => o.method === 'GET')) await documented(op, { headers: b.headers() });
  const members = operations().find((o) => o.template === '/api/organizations/{id}/members' && o.method === 'GET')!;
  assert.equal(await documented(members, { headers: b.headers() }), 'NOT_FOUND');
});
