// WhatsApp credentials are checked with Meta (FakeWhatsApp's Graph API) when they are attached:
// a token Meta refuses or a phone number id it does not know leaves the channel `failed` with a
// sentence saying what to fix; good ones wait for Meta's handshake; Meta unreachable is not the
// owner's fault (connecting, said so). Real store (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeWhatsApp } from '@berth/testkit';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';
import { checkWhatsApp } from '../src/channels/check-whatsapp.js';
import { REFUSED_PORT } from './helpers/callback-receiver.js';

let h: Harness;
let key: string;
let wa: FakeWhatsApp;

before(async () => {
  wa = await new FakeWhatsApp().start();
  ({ h, key } = await startHarnessWithKey({ WHATSAPP_API_ROOT: wa.url }));
});
after(async () => {
  await h.close();
  await wa.stop();
});

const put = async (body: object) => {
  const deploymentId = await activeDeployment(h, key);
  const res = await h.inject({
    method: 'PUT',
    url: `/api/v1/assistants/${deploymentId}/channels/whatsapp`,
    headers: { 'x-api-key': key },
    payload: body as never,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
};

test('credentials Meta accepts: connecting, waiting for the webhook handshake', async () => {
  const n = wa.addNumber();
  const c = await put({ phoneNumberId: n.phoneNumberId, accessToken: n.accessToken, appSecret: n.appSecret });
  assert.equal(c.status, 'connecting');
  assert.match(c.statusMessage, /Paste the webhook URL and verify token/);
  assert.ok(wa.requests.some((r) => r.path.endsWith(`/${n.phoneNumberId}`) && r.auth === `Bearer ${n.accessToken}`));
});

test('a token Meta refuses: failed, saying to make a new system user token', async () => {
  const n = wa.addNumber();
  const c = await put({ phoneNumberId: n.phoneNumberId, accessToken: `${n.accessToken}x`, appSecret: n.appSecret });
  assert.equal(c.status, 'failed');
  assert.match(c.statusMessage, /Meta refused the access token .*system user token/);
  assert.ok(!c.statusMessage.includes(n.accessToken));
});

test('a phone number id Meta does not know: failed, saying where to copy it from', async () => {
  const n = wa.addNumber();
  const c = await put({ phoneNumberId: '999000111222333', accessToken: n.accessToken, appSecret: n.appSecret });
  assert.equal(c.status, 'failed');
  assert.match(c.statusMessage, /no WhatsApp phone number with id 999000111222333.*API setup/);
});

test('Meta unreachable: connecting, and the owner is told it could not be checked', async () => {
  const checked = await checkWhatsApp(`http://127.0.0.1:${REFUSED_PORT}/v21.0`, '1', 'token-token-token-token');
  assert.equal(checked.status, 'connecting');
  assert.match(checked.statusMessage, /could not be reached/);
});
