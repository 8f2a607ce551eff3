import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startHarness, type Harness } from './helpers/harness.js';
import { assertCompiles, writeUserProject } from './helpers/user-project.js';
import { ERROR_STATUS } from '../src/platform/errors/codes.js';
import { clientSchemaSource } from '../../../scripts/generate-client.js';

let h: Harness;
let doc: any;
before(async () => {
  h = await startHarness();
  const res = await h.inject({ method: 'GET', url: '/api/openapi' });
  assert.equal(res.statusCode, 200);
  doc = res.json();
});
after(async () => h.close());

/** What a write to one's own assistant (activate, update) can answer besides success. */
const WRITE_ERRORS = [
  'UNAUTHORIZED',
  'NOT_FOUND',
  'INVALID_REQUEST',
  'INVALID_INPUT',
  'INVALID_STATE',
  'API_DISABLED',
  'INTERNAL_ERROR',
];

const OPERATIONS: Array<[string, string, string[]]> = [
  [
    'post',
    '/api/v1/assistants/purchase',
    ['UNAUTHORIZED', 'INVALID_REQUEST', 'PAYMENT_NOT_CONFIGURED', 'API_DISABLED', 'INTERNAL_ERROR'],
  ],
  ['post', '/api/v1/assistants/{deploymentId}/activate', WRITE_ERRORS],
  ['get', '/api/v1/assistants/{deploymentId}/status', ['UNAUTHORIZED', 'NOT_FOUND', 'API_DISABLED', 'INTERNAL_ERROR']],
  ['get', '/api/v1/assistants', ['UNAUTHORIZED', 'API_DISABLED', 'INTERNAL_ERROR']],
  ['get', '/api/v1/assistants/{deploymentId}', ['UNAUTHORIZED', 'NOT_FOUND', 'API_DISABLED', 'INTERNAL_ERROR']],
  ['patch', '/api/v1/assistants/{deploymentId}', WRITE_ERRORS],
  [
    'post',
    '/api/v1/assistants/{deploymentId}/redeploy',
    ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_REQUEST', 'INVALID_STATE', 'API_DISABLED', 'INTERNAL_ERROR'],
  ],
  [
    'post',
    '/api/v1/assistants/{deploymentId}/stop',
    ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_REQUEST', 'WORKER_DELETE_FAILED', 'API_DISABLED', 'INTERNAL_ERROR'],
  ],
  [
    'delete',
    '/api/v1/assistants/{deploymentId}',
    ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_REQUEST', 'WORKER_DELETE_FAILED', 'API_DISABLED', 'INTERNAL_ERROR'],
  ],
  [
    'post',
    '/api/v1/assistants/{deploymentId}/chat/completions',
    [
      'UNAUTHORIZED',
      'INVALID_REQUEST',
      'NOT_FOUND',
      'UNSUPPORTED_FRAMEWORK',
      'ASSISTANT_NOT_READY',
      'CREDITS_EXHAUSTED',
      'RATE_LIMITED',
      'BAD_GATEWAY',
      'API_DISABLED',
      'INTERNAL_ERROR',
    ],
  ],
  [
    'get',
    '/api/v1/assistants/{deploymentId}/models',
    ['UNAUTHORIZED', 'NOT_FOUND', 'UNSUPPORTED_FRAMEWORK', 'API_DISABLED', 'INTERNAL_ERROR'],
  ],
];

// Extra endpoints DESIGN.md §2 allows beside the spec's paths.
const EXTRA = [
  'get /api/v1/assistants/{deploymentId}/usage',
  'put /api/v1/assistants/{deploymentId}/limits',
  // Assistant settings (DESIGN §7.1, docs/decisions/0021-settings.md).
  'get /api/v1/assistants/{deploymentId}/settings',
  'put /api/v1/assistants/{deploymentId}/settings',
  'get /api/v1/assistants/{deploymentId}/settings/versions',
  'post /api/v1/assistants/{deploymentId}/settings/rollback',
  'get /api/v1/assistants/{deploymentId}/pairings',
  'get /api/v1/catalog/models',
  'post /api/v1/assistants/{deploymentId}/pairings/{code}/approve',
  // Accounts (docs/decisions/0019).
  'post /api/auth/signup',
  'post /api/auth/login',
  'get /api/auth/session',
  'post /api/auth/logout',
  'post /api/auth/logout-all',
  'post /api/auth/password',
  'get /api/auth/callback-secret',
  'get /api/keys',
  'post /api/keys',
  'delete /api/keys/{id}',
  'get /api/organizations',
  'post /api/organizations',
  'get /api/organizations/{id}/members',
  'post /api/organizations/{id}/invitations',
  'post /api/invitations/{token}/accept',
  'delete /api/organizations/{id}/members/{userId}',
  // The organization's callback secret (issue 28).
  'get /api/organizations/{id}/callback-secret',
  'post /api/organizations/{id}/callback-secret/rotate',
  // Operations (docs/decisions/0025).
  'get /api/version',
  // The first hour (docs/decisions/0028).
  'get /api/auth/whoami',
  'get /api/v1/assistants/{deploymentId}/checkout',
  'get /api/v1/assistants/{deploymentId}/connect',
  'get /api/v1/plans',
  'post /api/auth/password-reset',
  'post /api/auth/password-reset/complete',
  'get /api/v1/assistants/{deploymentId}/sessions/{sessionId}',
  'delete /api/v1/assistants/{deploymentId}/sessions/{sessionId}',
  // The owner's view of reminders (issue 57 R5, docs/decisions/0031-trust-round-4-agent-bounds.md).
  'get /api/v1/assistants/{deploymentId}/reminders',
  'delete /api/v1/assistants/{deploymentId}/reminders',
  'delete /api/v1/assistants/{deploymentId}/reminders/{reminderId}',
  // Channels beside Telegram (issue 58, DESIGN §9.1, docs/decisions/0033-channels-ingress.md).
  'get /api/v1/assistants/{deploymentId}/channels',
  'put /api/v1/assistants/{deploymentId}/channels/{type}',
  'delete /api/v1/assistants/{deploymentId}/channels/{type}',
  // The Responses API beside chat completions (issue 65, docs/decisions/0032-responses-api.md).
  'post /api/v1/assistants/{deploymentId}/responses',
  'get /api/v1/assistants/{deploymentId}/responses/{responseId}',
  // The owner's console (issue 61, DESIGN §9.3, docs/decisions/0033-owner-console.md).
  'put /api/v1/assistants/{deploymentId}/model',
  'post /api/v1/assistants/{deploymentId}/pairings/{code}/deny',
  'post /api/v1/assistants/{deploymentId}/billing-portal',
  'post /api/v1/assistants/{deploymentId}/subscription/cancel',
  // Owner tools over MCP (DESIGN §9.2, docs/decisions/0033-mcp-tools.md).
  'get /api/v1/assistants/{deploymentId}/mcp-servers',
  'put /api/v1/assistants/{deploymentId}/mcp-servers/{name}',
  'delete /api/v1/assistants/{deploymentId}/mcp-servers/{name}',
];

test('the document lists the eleven operations of the spec, the documented extra ones, and nothing else', () => {
  assert.equal(doc.openapi, '3.1.0');
  const listed = Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`))
    .sort();
  assert.deepEqual(listed, [...OPERATIONS.map(([m, p]) => `${m} ${p}`), ...EXTRA].sort());
});

test('every operation documents every error code of the spec under its status', () => {
  for (const [method, path, codes] of OPERATIONS) {
    const op = doc.paths[path][method];
    for (const code of codes) {
      const status = String(ERROR_STATUS[code as keyof typeof ERROR_STATUS]);
      const schema = op.responses[status]?.content?.['application/json']?.schema;
      assert.ok(schema, `${method} ${path}: no ${status} response`);
      const allowed = JSON.stringify(schema.properties.error.properties.code);
      assert.ok(allowed.includes(`"${code}"`), `${method} ${path}: ${status} does not list ${code}`);
    }
  }
});

test('security: X-API-Key or the session cookie everywhere, Bearer only on chat and models', () => {
  assert.deepEqual(doc.components.securitySchemes.ApiKeyHeader, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'API key issued by the operator.',
  });
  assert.equal(doc.components.securitySchemes.BearerAuth.scheme, 'bearer');
  for (const [method, path] of OPERATIONS) {
    const names = doc.paths[path][method].security.flatMap((s: object) => Object.keys(s)).sort();
    assert.deepEqual(
      names,
      path.endsWith('/chat/completions') || path.endsWith('/models')
        ? ['ApiKeyHeader', 'BearerAuth', 'SessionCookie']
        : ['ApiKeyHeader', 'SessionCookie'],
      path,
    );
  }
  assert.equal(doc.components.securitySchemes.SessionCookie.in, 'cookie');
  assert.equal(doc.components.securitySchemes.SessionCookie.name, 'berth_session');
  const security = (m: string, p: string) => doc.paths[p][m].security.flatMap((s: object) => Object.keys(s)).sort();
  assert.deepEqual(security('post', '/api/auth/login'), []);
  assert.deepEqual(security('post', '/api/auth/logout'), ['SessionCookie']);
  assert.deepEqual(security('get', '/api/keys'), ['ApiKeyHeader', 'SessionCookie']);
  assert.deepEqual(security('get', '/api/auth/callback-secret'), ['ApiKeyHeader', 'SessionCookie']);
  assert.equal(doc.servers[0].url, 'http://berth.test');
});

test('responses: the bearer key as on chat, a response object or its event stream, a stored one by id', () => {
  const base = '/api/v1/assistants/{deploymentId}/responses';
  const create = doc.paths[base].post;
  assert.deepEqual(create.security.flatMap((s: object) => Object.keys(s)).sort(), [
    'ApiKeyHeader',
    'BearerAuth',
    'SessionCookie',
  ]);
  // The JSON form alone is the 200 (generated clients type it); the stream is documented beside it.
  const ok = create.responses['200'].content;
  assert.deepEqual(Object.keys(ok), ['application/json']);
  assert.match(JSON.stringify(ok['application/json'].schema.properties.object), /"response"/);
  assert.equal(create['x-berth-stream'].contentType, 'text/event-stream');
  assert.match(create['x-berth-stream'].schema.properties.type.description, /response\.output_text\.delta/);
  assert.ok(create.requestBody.content['application/json'].schema.required.includes('input'));
  const get = doc.paths[`${base}/{responseId}`].get;
  assert.match(JSON.stringify(get.responses['200'].content['application/json'].schema.properties.object), /"response"/);
  assert.ok(get.responses['404']);
});

test('the API key is a security scheme only, never a parameter (generated clients take it once)', () => {
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const names = (op.parameters ?? []).map((p: { name: string }) => p.name.toLowerCase());
      assert.ok(!names.includes('x-api-key'), `${method} ${path} declares x-api-key as a parameter`);
      assert.ok(!names.includes('authorization'), `${method} ${path} declares authorization as a parameter`);
    }
  }
});

test('chat: JSON completion with usage, the event stream, and the session header both ways', () => {
  const op = doc.paths['/api/v1/assistants/{deploymentId}/chat/completions'].post;
  const ok = op.responses['200'];
  assert.deepEqual(Object.keys(ok.content), ['application/json'], 'the 200 is the JSON form alone');
  const json = ok.content['application/json'].schema;
  assert.deepEqual(json.properties.usage.required, ['prompt_tokens', 'completion_tokens', 'total_tokens']);
  assert.equal(op['x-berth-stream'].contentType, 'text/event-stream');
  const events = op['x-berth-stream'].schema.anyOf;
  assert.deepEqual(
    events.map((e: any) => e.title),
    ['ChunkEvent', 'ToolProgressEvent', 'ErrorEvent', 'DoneEvent'],
  );
  // JSON Schema as the routes declare it (an extension is not rewritten): a literal is a `const`.
  const progress = events[1].properties;
  assert.equal(progress.event.const, 'assistant.tool.progress');
  assert.deepEqual(Object.keys(progress.data.properties).slice(-3), ['tool', 'emoji', 'label']);
  assert.equal(progress.data.properties.object.const, 'chat.completion.chunk');
  assert.ok(events[0].properties.data.properties.usage, 'the last chunk carries usage');
  const header = op.parameters.find((p: any) => p.in === 'header');
  assert.equal(header.name, 'X-Assistant-Session-Id');
  assert.equal(header.required, false);
  assert.ok(ok.headers['X-Assistant-Session-Id'].schema);
});

test('passes Redocly lint (recommended-strict, redocly.yaml) with no problem at all', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-openapi-'));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const bin = resolve(import.meta.dirname, '../../../node_modules/.bin/redocly');
  const config = resolve(import.meta.dirname, '../../../redocly.yaml');
  const res = spawnSync(bin, ['lint', file, '--config', config, '--format=stylish'], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  assert.equal(res.status, 0, `${res.stdout}\n${res.stderr}`);
  assert.match(res.stdout + res.stderr, /Your API description is valid/);
  assert.doesNotMatch(res.stdout + res.stderr, /You have \d+ warning/, 'no lint warnings either');
});

test('the client openapi-typescript generates compiles in its idiomatic use (data.choices, data.output)', async () => {
  // Inside the repository's node_modules, so the user's code finds openapi-fetch as an install would.
  const root = resolve(import.meta.dirname, '../../..');
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  const dir = mkdtempSync(join(root, 'node_modules/.cache/berth-openapi-ts-'));
  try {
    writeFileSync(join(dir, 'schema.ts'), await clientSchemaSource(doc));
    writeUserProject(
      dir,
      join(import.meta.dirname, 'openapi-typescript-usage.fixture.ts'),
      { lib: ['ES2023', 'DOM'], types: [] },
      ['schema.ts', 'usage.ts'],
    );
    assertCompiles(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
