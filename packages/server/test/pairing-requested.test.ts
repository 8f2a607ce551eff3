// Pairing reaches the owner (DESIGN §9.3) through the whole product: the real agent host, FakeTelegram
// and a callback receiver (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL). A stranger on a
// pairing-mode bot gets a code, and the owner's callback URL receives a `pairing.requested` event
// signed like status callbacks, naming who asked and until when; a code handed out again is not
// announced twice; a worker's notice without a valid gateway credential is refused. The owner can
// deny a code as well as approve it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { Webhook } from 'standardwebhooks';
import { defaultSettings } from '@berth/contracts/settings';
import { close, listen } from '@berth/testkit';
import { activeBot, ownersWebhook, startE2E, type E2E } from './helpers/e2e.js';
import { until } from './helpers/until.js';

const BOT = '7300000066:AApairingRequestedBotTokenForE2eTests_x';
let e: E2E;
let id: string;
const got: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
const server = createServer(async (req, res) => {
  let body = '';
  for await (const c of req) body += c;
  got.push({ headers: req.headers, body });
  res.writeHead(204).end();
});
let hook = '';

before(async () => {
  hook = `${await listen(server)}/hooks/berth`;
  e = await startE2E({ CALLBACK_ALLOW_INSECURE: 'true' });
  id = await activeBot(e, BOT, { callbackUrl: hook });
  const put = await e.api('PUT', `/api/v1/assistants/${id}/settings`, {
    ...defaultSettings(),
    access: { mode: 'pairing', telegramUserIds: [], perUserDailyReplies: null },
  });
  assert.equal(put.status, 200, put.text);
});
after(async () => {
  await e?.close();
  await close(server);
});

const pairingEvents = (wh: Webhook) =>
  got
    .map((g) => wh.verify(g.body, g.headers as Record<string, string>) as any)
    .filter((ev) => ev.type === 'pairing.requested');

test("a stranger's code reaches the owner as a signed pairing.requested callback, once", async () => {
  const wh = await ownersWebhook(e, id);

  e.tg.userSends(BOT, 990, { text: 'may I talk to you?' });
  const told = await e.tg.waitForSent((m) => m.chat_id === 990 && /\b[A-Z2-9]{8}\b/.test(m.text));
  const code = /\b([A-Z2-9]{8})\b/.exec(told.text)![1]!;
  const [ev] = await until('the pairing.requested callback', () => {
    const evs = pairingEvents(wh);
    return evs.length ? evs : undefined;
  });
  assert.equal(ev.data.deploymentId, id);
  assert.equal(ev.data.code, code);
  assert.equal(ev.data.telegramUserId, 990);
  assert.ok(ev.data.name === null || typeof ev.data.name === 'string');
  const ttl = Date.parse(ev.data.expiresAt) - Date.parse(ev.timestamp);
  assert.ok(ttl > 59 * 60_000 && ttl <= 60 * 60_000, `valid one hour (${ttl} ms)`);
  assert.equal(typeof ev.sequence, 'number');

  // The same stranger again: the same code, and no second notice.
  const sentBefore = e.tg.sent.length;
  e.tg.userSends(BOT, 990, { text: 'hello again' });
  await e.tg.waitForSent((m) => m.chat_id === 990 && e.tg.sent.indexOf(m) >= sentBefore);
  // A second stranger's notice arriving proves the first one's repeat had its chance to be sent.
  e.tg.userSends(BOT, 991, { text: 'me too' });
  await until('the second stranger’s notice', () => (pairingEvents(wh).length >= 2 ? true : undefined));
  assert.deepEqual(
    pairingEvents(wh).map((x) => x.data.telegramUserId),
    [990, 991],
  );

  // Listed for the owner with who asked; denied, it is gone and nobody was added.
  const listed = (await e.api('GET', `/api/v1/assistants/${id}/pairings`)).json.data;
  assert.deepEqual(listed.map((p: { telegramUserId: number }) => p.telegramUserId).sort(), [990, 991]);
  const other = listed.find((p: { telegramUserId: number }) => p.telegramUserId === 991).code;
  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/pairings/${other}/deny`)).status, 200);
  const left = (await e.api('GET', `/api/v1/assistants/${id}/pairings`)).json.data;
  assert.deepEqual(
    left.map((p: { code: string }) => p.code),
    [code],
  );
  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/pairings/${other}/deny`)).status, 404);
  assert.deepEqual((await e.api('GET', `/api/v1/assistants/${id}/settings`)).json.data.access.telegramUserIds, []);
});

test('a pairing notice without the deployment’s gateway credential is refused and announces nothing', async () => {
  const before = got.length;
  const res = await fetch(`${e.runtime.services.billing.gatewayUrl()}/pairings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bgw_forged_1_AAAA' },
    body: JSON.stringify({ code: 'ABCDEFGH', telegramUserId: 1, name: 'Mallory', expiresAt: new Date().toISOString() }),
  });
  assert.equal(res.status, 401);
  assert.equal(got.length, before);
});
