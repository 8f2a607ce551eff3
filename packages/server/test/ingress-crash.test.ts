// kill -9 of the control plane between a webhook's 200 and its delivery (DESIGN §9.1): the update
// was stored with its delivery job before the 200, so the restarted control plane hands it to the
// (restarted) worker, and the user gets one answer. The real control plane process with its local
// agent host, real HTTP throughout; Telegram's webhook stands in for any platform (SQLite, or
// PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { MODEL_KEY } from './helpers/e2e.js';
import { TEST_SECRETS_KEY } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import { callAs, startProcessRig, stopControlPlane } from './helpers/control-plane-process.js';
import { createSecretBox, openStore, resolveSecretsKey } from '../src/index.js';
import { telegramWebhookSecret } from '../src/ingress/signatures.js';

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
    const call = callAs(rig.key, () => cp.url);
    const { data } = await call('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
    const id = data.deploymentId as string;
    await request(`${cp.url}${new URL(data.checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) =>
      r.body.dump(),
    );
    const activated = await call('POST', `/api/v1/assistants/${id}/activate`, {
      name: 'Crash',
      modelProvider: 'fakeai',
      modelId: 'fake-model-1',
      messengerBotToken: bot,
      modelApiKey: MODEL_KEY,
    });
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

    // The worker was asked and could not take it yet: the job waits for its next attempt.
    const job = () =>
      store.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('kind', '=', 'channel_update')
        .executeTakeFirst();
    const tried = await eventually(job, (j) => Number(j?.attempts ?? 0) >= 1, 30_000);
    assert.equal(tried?.status, 'pending');
    const row = () => store.db.selectFrom('channel_updates').selectAll().executeTakeFirstOrThrow();
    assert.equal((await row()).delivered_at, null);

    const exited = new Promise((r) => cp.child.once('exit', r));
    cp.child.kill('SIGKILL');
    await exited;
    tg.silent = false;
    cp = await rig.start();

    const answer = await tg.waitForSent((m) => m.chat_id === 7601 && m.text === 'Answered once.', 90_000);
    assert.ok(answer);
    const done = await eventually(job, (j) => j?.status === 'done', 30_000);
    assert.equal(done?.status, 'done');
    assert.ok((await row()).delivered_at, 'marked delivered');
    assert.equal(tg.sent.filter((m) => m.chat_id === 7601).length, 1, 'answered once');
    assert.equal(
      provider.requests.filter((r) => JSON.stringify(r.body).includes('hello through the webhook')).length,
      1,
      'one turn',
    );
  } finally {
    await store.close();
    await stopControlPlane(cp);
    await rig.close();
  }
});
