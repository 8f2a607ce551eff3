// kill -9 of the control plane between a webhook's 200 and its delivery (DESIGN §9.1): the update
// was stored with its delivery job before the 200, so the restarted control plane hands it to the
// (restarted) worker, and the user gets one answer. The real control plane process with its local
// agent host, real HTTP throughout; Telegram's webhook and WhatsApp's signed one from FakeWhatsApp
// (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { FakeWhatsApp } from '@berth/testkit';
import { TEST_SECRETS_KEY } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import {
  callAs,
  type ControlPlaneProcess,
  type ProcessRig,
  settledStatus,
  startProcessRig,
  stopControlPlane,
} from './helpers/control-plane-process.js';
import { createSecretBox, openStore, resolveSecretsKey } from '../src/index.js';
import { telegramWebhookSecret } from '../src/ingress/signatures.js';

type Store = Awaited<ReturnType<typeof openStore>>;

/** The delivery job of the first update stored, and the stored update itself. */
function ingressRows(store: Store) {
  const job = () =>
    store.db
      .selectFrom('jobs')
      .select(['status', 'attempts'])
      .where('kind', '=', 'channel_update')
      .orderBy('created_at')
      .executeTakeFirst();
  const updates = () => store.db.selectFrom('channel_updates').selectAll().orderBy('received_at').execute();
  return { job, updates };
}

/**
 * The worker was asked and could not take the update yet (its channel still connecting): the job
 * waits for its next attempt, undelivered. Then the control plane dies by kill -9, `meanwhile`
 * runs (the platform comes back) and a new control plane starts on the same data.
 */
async function crashAfterTheAttempt(rig: ProcessRig, cp: ControlPlaneProcess, store: Store, meanwhile: () => void) {
  const { job, updates } = ingressRows(store);
  const tried = await eventually(job, (j) => Number(j?.attempts ?? 0) >= 1, 30_000);
  assert.equal(tried?.status, 'pending');
  assert.equal((await updates())[0]!.delivered_at, null);
  const exited = new Promise((r) => cp.child.once('exit', r));
  cp.child.kill('SIGKILL');
  await exited;
  meanwhile();
  return rig.start();
}

/** After the restart: the job done and its update marked delivered. */
async function deliveredOnce(store: Store) {
  const { job, updates } = ingressRows(store);
  const done = await eventually(job, (j) => j?.status === 'done', 30_000);
  assert.equal(done?.status, 'done');
  assert.ok((await updates())[0]!.delivered_at, 'marked delivered');
}

/** Model calls whose newest message is `text` (a later turn has it in its history). */
const turnsWith = (rig: ProcessRig, text: string) =>
  rig.provider.requests.filter((r) => JSON.stringify(r.body.messages?.at(-1)).includes(text)).length;

test('kill -9 after the 200, before the worker took the update: answered once after the restart', async () => {
  const rig = await startProcessRig({
    email: 'ingress-crash@example.com',
    tmpPrefix: 'berth-ingress-crash-',
    env: { DEPLOY_TIMEOUT_SECONDS: '120', JOB_LEASE_SECONDS: '2' },
  });
  const { tg, provider } = rig;
  const bot = '7400000058:AAingressSurvivesControlPlaneCrash_q';
  tg.addBot(bot);
  // Telegram does not answer yet: the worker's bot stays "connecting", so it cannot take the update
  // and the control plane keeps it for a later attempt (the window a kill -9 falls into).
  tg.silent = true;
  let cp = await rig.start();
  const store = await openStore({ databaseUrl: rig.db.url, dataDir: rig.dataDir });
  try {
    const { id, activated } = await rig.buyAndActivate(cp, 'Crash', bot);
    assert.equal(activated.data?.status, 'deploying', JSON.stringify(activated));

    const secret = telegramWebhookSecret(
      createSecretBox(resolveSecretsKey(Buffer.from(TEST_SECRETS_KEY, 'base64'), rig.dataDir)),
      id,
    );
    provider.queue.push({ content: 'Answered once.' });
    const update = {
      update_id: 580001,
      message: {
        message_id: 11,
        date: Math.floor(Date.now() / 1000),
        chat: { id: 7601, type: 'private', first_name: 'Ada' },
        from: { id: 7601, is_bot: false, first_name: 'Ada' },
        text: 'hello through the webhook',
      },
    };
    const res = await request(`${cp.url}/hooks/telegram/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
      body: JSON.stringify(update),
    });
    assert.equal(res.statusCode, 200, await res.body.text());

    cp = await crashAfterTheAttempt(rig, cp, store, () => {
      tg.silent = false;
    });

    const answer = await tg.waitForSent((m) => m.chat_id === 7601 && m.text === 'Answered once.', 90_000);
    assert.ok(answer);
    await deliveredOnce(store);
    assert.equal(tg.sent.filter((m) => m.chat_id === 7601).length, 1, 'answered once');
    assert.equal(turnsWith(rig, 'hello through the webhook'), 1, 'one turn');
  } finally {
    await store.close();
    await stopControlPlane(cp);
    await rig.close();
  }
});

test("WhatsApp: kill -9 after the 200, before the worker took the message: one reply after the restart, and Meta's retry of it none", async () => {
  const wa = await new FakeWhatsApp().start();
  const rig = await startProcessRig({
    email: 'ingress-crash-whatsapp@example.com',
    tmpPrefix: 'berth-ingress-crash-wa-',
    env: { DEPLOY_TIMEOUT_SECONDS: '120', JOB_LEASE_SECONDS: '2', WHATSAPP_API_ROOT: wa.url },
  });
  const bot = '7400000158:AAingressWhatsAppControlPlaneCrash_q';
  rig.tg.addBot(bot);
  const ada = { waId: '16505550158', name: 'Ada' };
  let cp = await rig.start();
  const store = await openStore({ databaseUrl: rig.db.url, dataDir: rig.dataDir });
  try {
    const call = callAs(rig.key, () => cp.url);
    const { id } = await rig.buyAndActivate(cp, 'Crash on WhatsApp', bot);
    assert.equal(await settledStatus(call, id, 60_000), 'active');
    // Meta's Graph API is down: the worker's number stays "connecting", so it cannot take the
    // message and the control plane keeps it for a later attempt (the window a kill -9 falls into).
    wa.unavailable = true;
    const number = wa.addNumber();
    const put = await call('PUT', `/api/v1/assistants/${id}/channels/whatsapp`, {
      phoneNumberId: number.phoneNumberId,
      accessToken: number.accessToken,
      appSecret: number.appSecret,
    });
    assert.equal(put.data?.status, 'connecting', JSON.stringify(put));
    const { webhookUrl, verifyToken } = put.data.details;
    const hook = () => `${cp.url}${new URL(webhookUrl).pathname}`;
    await wa.subscribe(number.phoneNumberId, hook(), verifyToken);

    rig.provider.queue.push({ content: 'Answered once on WhatsApp.' });
    const { id: messageId, payload } = wa.messagePayload(number.phoneNumberId, ada, { text: 'hello from WhatsApp' });
    wa.lastWroteAt(number.phoneNumberId, ada.waId, Date.now());
    const sent = await wa.deliver(number.phoneNumberId, payload);
    assert.equal(sent.status, 200, sent.body);

    cp = await crashAfterTheAttempt(rig, cp, store, () => {
      wa.unavailable = false;
    });
    // The webhook URL Meta holds reaches the new process (its port is new in this test).
    await wa.subscribe(number.phoneNumberId, hook(), verifyToken);

    const reply = (m: { to: string; body: any }) =>
      m.to === ada.waId && m.body.text?.body === 'Answered once on WhatsApp.';
    await wa.waitForSent(reply, 90_000);
    await deliveredOnce(store);

    // Meta did not see the first 200 (as far as it knows) and sends the same message again.
    const again = await wa.deliver(number.phoneNumberId, payload);
    assert.equal(again.status, 200, again.body);
    // The next message's answer comes after any second reply would have.
    const next = await wa.userSends(number.phoneNumberId, ada, { text: 'and then this' });
    assert.equal(next.status, 200, next.body);
    await wa.waitForSent((m) => m.to === ada.waId && m.body.text?.body === 'You said: and then this', 30_000);
    assert.deepEqual(
      wa.sent.filter((m) => m.to === ada.waId).map((m) => m.body.text?.body),
      ['Answered once on WhatsApp.', 'You said: and then this'],
      'answered once',
    );
    assert.equal(turnsWith(rig, 'hello from WhatsApp'), 1, 'one turn');
    const stored = (await ingressRows(store).updates()).filter((u) => u.body.includes(messageId));
    assert.equal(stored.length, 1, "Meta's retry was not stored again");
  } finally {
    await store.close();
    await stopControlPlane(cp);
    await rig.close();
    await wa.stop();
  }
});
