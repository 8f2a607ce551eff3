// The worker spec's mount (@berth/contracts/worker, decision 0033) as the agent reads it: an agent
// host's PUT /agents/{name} takes its `channels` (and the older `telegram` of a control plane of the
// version before); serve mode reads the same document from a dedicated pod's environment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { defaultSettings } from '@berth/contracts/settings';
import { mountToEnv } from '@berth/contracts/worker';
import { loadServeConfig } from '../src/config/env.js';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { hostBed } from './helpers/host-bed.js';
import { fakeModel } from './helpers/serve.js';

const ADMIN = 'admin-token-mount-0123456789abcdef';
const BOT = '7000000002:AAmountmountmountmountmountmount02';
const { tg } = fakeTelegramBed(BOT);
const bed = hostBed(ADMIN, 'berth-mount-');

const put = (name: string, body: object) =>
  request(`${bed.url}/agents/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const mount = () => ({
  gatewayToken: 'gateway-mount-0123456789',
  model: fakeModel(bed.provider.url),
  settings: defaultSettings(),
});

test("an agent host runs the mount's Telegram channel, and refuses two channels of one type", async () => {
  const twice = await put('twice', {
    ...mount(),
    telegram: { botToken: BOT, apiRoot: tg.url },
    channels: [{ type: 'telegram', botToken: BOT, apiRoot: tg.url }],
  });
  assert.equal(twice.statusCode, 400);
  const error = ((await twice.body.json()) as { error: { code: string; message: string } }).error;
  assert.equal(error.code, 'INVALID_REQUEST');
  assert.match(error.message, /two "telegram" channels/);
  assert.equal(bed.host.get('twice'), undefined, 'nothing runs');

  const unknown = await put('other', { ...mount(), channels: [{ type: 'carrier-pigeon', botToken: BOT }] });
  assert.equal(unknown.statusCode, 400, 'a channel type the schema does not know');

  const res = await put('alpha', { ...mount(), channels: [{ type: 'telegram', botToken: BOT, apiRoot: tg.url }] });
  assert.equal(res.statusCode, 200);
  const body = (await res.body.json()) as { health: { telegram: { state: string } } };
  assert.equal(body.health.telegram.state, 'connecting', 'a bot given as a channel is reported as its bot');
  await waitUntil(() => bed.host.get('alpha')!.health().ready, 'the bot connected');
  assert.equal(bed.host.get('alpha')!.health().telegram.username !== null, true);
});

test("serve mode reads a dedicated pod's environment back into the same channels", () => {
  const vars = mountToEnv({ ...mount(), channels: [{ type: 'telegram', botToken: BOT }] });
  const env = Object.fromEntries(vars.map((v) => [v.name, v.value]));
  const config = loadServeConfig({ ...env, TELEGRAM_API_ROOT: 'http://127.0.0.1:9/' });
  assert.deepEqual(
    config.agent.channels.map(({ type, ...c }) => [type, 'botToken' in c ? c.botToken : undefined, c.apiRoot]),
    [['telegram', BOT, 'http://127.0.0.1:9/']],
  );
  assert.equal(config.agent.gatewayToken, 'gateway-mount-0123456789');
  assert.deepEqual(config.agent.settingsJson, defaultSettings());
  assert.deepEqual(loadServeConfig({ ...env, TELEGRAM_BOT_TOKEN: '' }).agent.channels, [], 'no bot: no channel');
});

test("a dedicated pod's channels beside Telegram come from one document, which wins over the per-channel variables", () => {
  const whatsapp = {
    type: 'whatsapp' as const,
    phoneNumberId: '106540352242922',
    accessToken: 'EAAmountWhatsAppToken',
  };
  const vars = mountToEnv({ ...mount(), channels: [{ type: 'telegram', botToken: BOT }, whatsapp] });
  assert.deepEqual(
    vars.filter((v) => /WHATSAPP|DISCORD|CHANNELS/.test(v.name)).map((v) => v.name),
    ['AGENT_CHANNELS'],
    'no per-channel variable a live change could leave stale',
  );
  const env = Object.fromEntries(vars.map((v) => [v.name, v.value]));
  const config = loadServeConfig(env);
  assert.deepEqual(config.agent.channelsJson, [whatsapp]);
  assert.deepEqual(
    config.agent.channels.map((c) => c.type),
    ['telegram'],
  );
  // A pod deployed before the document existed still lists a number in its own variables; once the
  // owner removes it live, the document (now empty) is what its next start believes.
  const stale = { WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId, WHATSAPP_ACCESS_TOKEN: whatsapp.accessToken };
  assert.deepEqual(
    loadServeConfig({ ...env, ...stale, AGENT_CHANNELS: '[]' }).agent.channels.map((c) => c.type),
    ['telegram'],
  );
  assert.deepEqual(
    loadServeConfig({ ...env, ...stale, AGENT_CHANNELS: '' }).agent.channels.map((c) => c.type),
    ['telegram', 'whatsapp'],
    "an operator's own serve names its number in the per-channel variables",
  );
});
