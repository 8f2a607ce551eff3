// The control plane serves the built dashboard at / with a strict CSP; client routes get its page,
// but the API, checkout, gateway and health check keep their own answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness } from './helpers/harness.js';

const PAGE = '<!doctype html><title>Berth</title><script type="module" src="/assets/app-1.js"></script>';
let dir: string;
let h: Harness;
let bare: Harness;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'berth-dashboard-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), PAGE);
  writeFileSync(join(dir, 'assets', 'app-1.js'), 'console.log(1)');
  h = await startHarness({}, { dashboardDir: dir });
  bare = await startHarness({}, { dashboardDir: '' });
});
after(async () => {
  await h.close();
  await bare.close();
  rmSync(dir, { recursive: true, force: true });
});

function csp(header: unknown): Map<string, string> {
  return new Map(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...v]) => [name!, v.join(' ')]),
  );
}

test('/ and client routes answer the page with a CSP that forbids inline and foreign scripts', async () => {
  for (const url of ['/', '/deployments/0b5c1f0e-8d0a-4a0c-9a43-3f9f6f1f3b11', '/keys', '/invite/abc?x=1', '/signin']) {
    const res = await h.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.body, PAGE, url);
    assert.match(String(res.headers['content-type']), /text\/html/);
    const policy = csp(res.headers['content-security-policy']);
    assert.equal(policy.get('default-src'), "'self'");
    assert.equal(policy.get('script-src'), "'self'");
    assert.equal(policy.get('frame-ancestors'), "'none'");
    assert.ok(!String(res.headers['content-security-policy']).includes('unsafe'), 'no unsafe-inline or unsafe-eval');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  }
});

test('assets are served with the CSP and a long cache; a missing asset is a 404, not the page', async () => {
  const js = await h.inject({ method: 'GET', url: '/assets/app-1.js' });
  assert.equal(js.statusCode, 200);
  assert.equal(js.body, 'console.log(1)');
  assert.match(String(js.headers['content-type']), /javascript/);
  assert.match(String(js.headers['cache-control']), /immutable/);
  assert.ok(js.headers['content-security-policy']);
  const gone = await h.inject({ method: 'GET', url: '/assets/app-0.js' });
  assert.equal(gone.statusCode, 404);
  assert.notEqual(gone.body, PAGE);
});

test('the server paths are never shadowed by the page', async () => {
  const key = await h.key();
  const list = await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': key } });
  assert.deepEqual(list.json(), { data: [] });
  for (const url of ['/api/v1/nope', '/api/auth/nothing-here', '/api', '/gateway/v1/x', '//api/v1/nope']) {
    const res = await h.inject({ method: 'GET', url });
    assert.notEqual(res.body, PAGE, url);
    assert.equal(res.json().error.code, 'NOT_FOUND', url);
  }
  const checkout = await h.inject({ method: 'GET', url: '/checkout/unknown-id' });
  assert.notEqual(checkout.body, PAGE);
  assert.match(checkout.body, /Checkout not found/);
  assert.deepEqual((await h.inject({ method: 'GET', url: '/healthz' })).json(), { ok: true });
  // Only GET and HEAD can be a page.
  const post = await h.inject({ method: 'POST', url: '/keys', payload: {} });
  assert.equal(post.statusCode, 404);
  assert.equal(post.json().error.code, 'NOT_FOUND');
  // The API's own answers carry no page CSP (the checkout page styles itself inline).
  assert.equal(list.headers['content-security-policy'], undefined);
});

test('without a built dashboard, / is the plain 404 envelope', async () => {
  const res = await bare.inject({ method: 'GET', url: '/' });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().error.code, 'NOT_FOUND');
});
