// Issue 57, finding 1: an active assistant's status tells the truth after its deploy. Another
// program polling its bot (Telegram's 409 to getUpdates), its token revoked at @BotFather (401),
// Telegram unreachable or silent (it takes the connection and never answers), or the model
// provider rejecting its key show in statusMessage within 30 s (the health watch asks every
// 100 ms here, 5 s by default), clear when the trouble ends, reach
// the owner's status callback (the spec's status view) and alert the operator. The status stays
// `active`. Control plane, real agent host, fake Telegram and provider over loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E, MODEL_KEY } from './helpers/e2e.js';
import { AlertReceiver } from './helpers/alert-receiver.js';
import { CallbackReceiver } from './helpers/callback-receiver.js';
import { until } from './helpers/until.js';

let e: E2E;
let alerts: AlertReceiver;
let hooks: CallbackReceiver;

before(async () => {
  // The agent host's long polls last 1 s (it inherits this), so one that Telegram never answers
  // is given up 1 s + the 5 s margin after it began, not 20 s.
  process.env.TELEGRAM_POLL_TIMEOUT_SECONDS = '1';
  alerts = await new AlertReceiver().start();
  hooks = await new CallbackReceiver().start();
  e = await startE2E(
    {
      CALLBACK_ALLOW_INSECURE: 'true',
      ALERT_WEBHOOK_URL: alerts.url,
      ALERT_WEBHOOK_FORMAT: 'standard',
      // The status is read every 100 ms for up to 30 s: more than the default budget of a minute.
      RATE_LIMIT_PER_MINUTE: '100000',
    },
    { healthWatchMs: 100 },
  );
  // A poll comes back within a second (as Telegram may answer one early): the agent learns that a
  // conflict or an outage is over when a poll returns whole, not 25 s later.
  e.tg.longPollCapMs = 1000;
});
after(async () => {
  await e.close();
  await alerts.close();
  hooks.close();
});

async function activeBot(token: string): Promise<string> {
  e.tg.addBot(token);
  const id = await e.activate(token, { callbackUrl: hooks.url });
  await e.waitForStatus(id, ['active']);
  return id;
}

/** The status view once `ok` holds of it; 30 s is the finding's bound. */
async function statusWhen(id: string, what: string, ok: (s: any) => boolean): Promise<any> {
  return until(
    what,
    async () => {
      const s = (await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data;
      return ok(s) ? s : undefined;
    },
    30_000,
    100,
  );
}

/** Waits until the status of the active assistant `id` carries a message: `message`, and it is still active. */
async function activeButSays(id: string, message: RegExp) {
  const s = await statusWhen(id, `${message} in statusMessage`, (v) => v.statusMessage !== null);
  assert.equal(s.status, 'active');
  assert.match(s.statusMessage, message);
  return s;
}

/**
 * FakeTelegram failing as its `failure` flag makes it: the active assistant's status says `message`
 * while it lasts, and nothing once it has ended.
 */
async function showsWhileItLasts(id: string, failure: 'unreachable' | 'silent', message: RegExp) {
  e.tg[failure] = true;
  try {
    await activeButSays(id, message);
  } finally {
    e.tg[failure] = false;
  }
  await statusWhen(id, 'the message cleared', (v) => v.statusMessage === null);
}

/** The owner's callbacks of this deployment, in order (status and statusMessage of each). */
function callbacksOf(id: string): Array<{ status: string; statusMessage: string | null }> {
  return (hooks.messages().get(id) ?? []).map((d) => {
    const data = JSON.parse(d.body).data;
    return { status: data.status, statusMessage: data.statusMessage };
  });
}

test('another program polling the bot shows in the status, the owner and the operator hear of it, and it clears', async () => {
  const bot = '7600000001:AAhealthOtherPollerBotToken_abcdefghij';
  const id = await activeBot(bot);
  e.tg.otherPollerStarts(bot);
  const unwell = await activeButSays(id, /Another program is polling this bot \(Telegram answered 409 Conflict/);

  await until('the owner told of it', () =>
    callbacksOf(id).some((c) => c.status === 'active' && c.statusMessage === unwell.statusMessage),
  );
  const alert = await until('the operator alerted', () =>
    alerts.received.find((a) => a.body.data?.cause === `worker_unhealthy:${id}`),
  );
  assert.equal(alert.body.type, 'berth.alert.worker_unhealthy');
  assert.match(alert.body.data.message, /409 Conflict/);

  e.tg.otherPollerStops(bot);
  const well = await statusWhen(id, 'the message cleared', (s) => s.statusMessage === null);
  assert.equal(well.status, 'active');
  await until('the owner told it ended', () => {
    const last = callbacksOf(id).at(-1);
    return last?.status === 'active' && last.statusMessage === null;
  });
});

test('a token revoked at BotFather shows in the status of the active assistant', async () => {
  const bot = '7600000002:AAhealthRevokedBotToken_abcdefghijklm';
  const id = await activeBot(bot);
  e.tg.revokeToken(bot);
  await activeButSays(id, /Telegram rejected the bot token \(401/);
});

test('Telegram unreachable shows in the status, and clears when it answers again', async () => {
  const bot = '7600000003:AAhealthUnreachableBotToken_abcdefghij';
  await showsWhileItLasts(
    await activeBot(bot),
    'unreachable',
    /Telegram polling failed: Network request for 'getUpdates' failed/,
  );
});

test('Telegram taking the connection and never answering shows in the status within 30 s, and clears', async () => {
  const bot = '7600000005:AAhealthSilentNetworkBotToken_abcdefgh';
  await showsWhileItLasts(
    await activeBot(bot),
    'silent',
    /Telegram did not answer getUpdates within 6 s \(a long poll of 1 s\)/,
  );
});

test('the model provider rejecting the key shows in the status, and clears once a call succeeds', async () => {
  const bot = '7600000004:AAhealthRejectedModelKeyToken_abcdefgh';
  const id = await activeBot(bot);
  const chat = () =>
    e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
      model: 'assistant-agent',
      messages: [{ role: 'user', content: 'hello' }],
    });
  e.provider.apiKeys.delete(MODEL_KEY);
  try {
    assert.equal((await chat()).status, 502);
    const s = await statusWhen(id, 'the rejected key in statusMessage', (v) => v.statusMessage !== null);
    assert.equal(s.status, 'active');
    assert.match(s.statusMessage, /rejected the API key \(401\)/);
  } finally {
    e.provider.apiKeys.add(MODEL_KEY);
  }
  assert.equal((await chat()).status, 200);
  await statusWhen(id, 'the message cleared', (v) => v.statusMessage === null);
});
