// Random bodies, headers and ids at every endpoint: never a 500, never a hang, and a rejected
// request leaves every row as it was.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activeDeployment, purchase } from './helpers/api.js';
import { ROUTES } from './helpers/routes.js';

let h: Harness;
let key: string;
let ids: string[];
before(async () => {
  ({ h, key } = await startHarnessWithKey());
  ids = [await activeDeployment(h, key), (await purchase(h, key)).deploymentId];
});
after(async () => h.close());

const jsonish = fc.oneof(
  fc.jsonValue(),
  fc.record({ apiMode: fc.oneof(fc.constantFrom('byok', 'managed', 'unlimited'), fc.string()) }, { requiredKeys: [] }),
  fc.record(
    {
      name: fc.oneof(fc.string(), fc.integer()),
      modelProvider: fc.oneof(fc.constantFrom('openai', 'openrouter', 'groq'), fc.string()),
      modelId: fc.oneof(fc.constantFrom('gpt-4o-mini', 'openai/gpt-4o-mini'), fc.string()),
      messengerBotToken: fc.oneof(fc.constant('7123456789:AAFakeTokenForTests_abcdefghijklmnopqrs'), fc.string()),
      modelApiKey: fc.string(),
      callbackUrl: fc.oneof(fc.webUrl(), fc.string(), fc.constant('https://[::1]/x')),
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    { model: fc.oneof(fc.constant('assistant-agent'), fc.string()), messages: fc.anything(), stream: fc.anything() },
    { requiredKeys: [] },
  ),
);

const rawBody = fc.oneof(
  jsonish.map((v) => ({ payload: JSON.stringify(v), type: 'application/json' })),
  fc.string().map((s) => ({ payload: s, type: 'application/json' })),
  fc.string().map((s) => ({ payload: s, type: 'text/plain' })),
  fc.constant({ payload: '', type: 'application/json' }),
);

const idArb = () =>
  fc.oneof(
    fc.constantFrom(...ids),
    fc.uuid(),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
    fc.constant('%00'),
    fc.constant('..%2F..'),
  );

const headerArb = fc.record({
  key: fc.oneof(fc.constant('own'), fc.constant('none'), fc.string({ maxLength: 60 })),
  bearer: fc.boolean(),
  session: fc.option(fc.string({ maxLength: 300 })),
});

test('fuzzed requests never yield a 500 and rejected ones change nothing', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...ROUTES), idArb(), rawBody, headerArb, async (route, id, body, hd) => {
      const headers: Record<string, string> = { 'content-type': body.type };
      const k = hd.key === 'own' ? key : hd.key === 'none' ? undefined : hd.key;
      if (k !== undefined && /^[\x21-\x7e]*$/.test(k)) {
        if (hd.bearer) headers.authorization = `Bearer ${k}`;
        else headers['x-api-key'] = k;
      }
      if (hd.session && /^[\x20-\x7e]*$/.test(hd.session)) headers['x-assistant-session-id'] = hd.session;
      const before = await h.snapshot();
      const res = await h.inject({ method: route.method, url: route.path(id), headers, payload: body.payload });
      assert.ok(res.statusCode < 500 || res.statusCode === 502, `${route.name} ${res.statusCode} ${res.body}`);
      const parsed = res.json();
      if (res.statusCode >= 400) {
        assert.equal(typeof parsed.error?.code, 'string', res.body);
        assert.deepEqual(await h.snapshot(), before, `${route.name} rejected with ${res.statusCode} but changed rows`);
      }
      await h.runtime.idle();
    }),
    { numRuns: 400 },
  );
});
