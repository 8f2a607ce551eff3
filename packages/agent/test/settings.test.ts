// The admin PUT carries the assistant's settings (DESIGN §7.1): the persona reaches the model, the
// tool switches decide what it is offered, a bad document is refused and changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { defaultSettings } from '@berth/contracts/settings';
import { fakeModel } from './helpers/serve.js';
import { hostBed } from './helpers/host-bed.js';

const ADMIN = 'admin-token-for-settings-tests-0123456789';
const GW = 'gateway-settings-0123456789';
const bed = hostBed(ADMIN, 'berth-settings-');
const { provider, host } = bed;

const put = (name: string, body: object) =>
  request(`${bed.url}/agents/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      gatewayToken: GW,
      model: fakeModel(provider.url),
      ...body,
    }),
  });

async function ask(name: string) {
  const before = provider.requests.length;
  const res = await request(`${bed.url}/agents/${name}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GW}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.statusCode, 200);
  await res.body.dump();
  return provider.requests[before]!.body;
}

test('settings.systemPrompt is the persona and settings.tools what the model is offered; the old field still works', async () => {
  const settings = {
    ...defaultSettings(),
    systemPrompt: 'You are Captain Berth.',
    tools: { ...defaultSettings().tools, calculator: false },
  };
  assert.equal(
    (await put('with-settings', { settings, systemPrompt: 'ignored when settings are given' })).statusCode,
    200,
  );
  const sent = await ask('with-settings');
  assert.deepEqual(sent.messages[0], { role: 'system', content: 'You are Captain Berth.' });
  const offered = sent.tools.map((t: { function: { name: string } }) => t.function.name);
  assert.ok(!offered.includes('calculator'), `calculator is switched off: ${offered}`);
  assert.ok(offered.includes('current_datetime'));

  assert.equal((await put('old-field', { systemPrompt: 'You are the old way.' })).statusCode, 200);
  assert.deepEqual((await ask('old-field')).messages[0], { role: 'system', content: 'You are the old way.' });
  assert.equal((await put('no-settings', {})).statusCode, 200);
  assert.deepEqual((await ask('no-settings')).messages[0], { role: 'system', content: defaultSettings().systemPrompt });
});

test('a settings document the schema refuses is a 400 naming the field, and no assistant is made', async () => {
  const res = await put('bad-settings', { settings: { ...defaultSettings(), groups: 'sometimes' } });
  assert.equal(res.statusCode, 400);
  const body = (await res.body.json()) as { error: { code: string; message: string } };
  assert.equal(body.error.code, 'INVALID_REQUEST');
  assert.match(body.error.message, /groups/);
  assert.equal(host.get('bad-settings'), undefined);
  const extra = await put('bad-settings', { settings: { ...defaultSettings(), colour: 'blue' } });
  assert.equal(extra.statusCode, 400);
  await extra.body.dump();
});
