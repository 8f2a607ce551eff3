// Issue 57: a network drop with no error (Telegram takes the connection and never answers a long
// poll) shows in the assistant's health once the poll's deadline (its timeout plus a margin) has
// passed, and a healthy poll that is merely late never does. The timing is shortened here (a 1 s
// poll, a 2.5 s margin); LONG_POLL's 15 s + 5 s, with the control plane's 5 s watch, keep the
// owner's view within the 30 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServe } from './helpers/serve.js';
import { fakeTelegramBed, waitFor } from './helpers/bed.js';
import { LONG_POLL, pollDeadlineMs } from '../src/channels/telegram/polling.js';
import { AgentConfigError, loadHostConfig } from '../src/config/env.js';

const TOKEN = '7000000141:AApollDeadlineFakeTokenForAgentTests_';
const { tg, provider } = fakeTelegramBed(TOKEN);
const TIMING = { timeoutS: 1, marginMs: 2_500 };

async function serve() {
  const s = await startServe({
    provider,
    telegram: tg,
    botToken: TOKEN,
    config: { telegram: { botToken: TOKEN, apiRoot: tg.url, longPoll: TIMING } },
  });
  await waitFor(() => s.agent.health().ready, 10_000);
  return s;
}

test('a Telegram that takes the connection and never answers shows in health once the deadline passed, and clears', async () => {
  const s = await serve();
  try {
    const t0 = Date.now();
    tg.silent = true;
    // The poll in flight may have begun just before; undici's deadlines are checked once a second.
    await waitFor(() => s.agent.trouble() !== undefined, pollDeadlineMs(TIMING) + 3_000);
    assert.ok(Date.now() - t0 <= pollDeadlineMs(TIMING) + 1_500, `noticed after ${Date.now() - t0} ms`);
    assert.match(
      s.agent.trouble()!,
      /^Telegram polling failed: Telegram did not answer getUpdates within 3\.5 s \(a long poll of 1 s\)/,
    );
    assert.equal(s.agent.health().reason, s.agent.trouble());
    tg.silent = false;
    // Back after the retry's backoff (1 s, then 2 s) and one whole poll.
    await waitFor(() => s.agent.trouble() === undefined, 10_000);
  } finally {
    tg.silent = false;
    await s.close(true);
  }
});

test('a healthy poll answered late, within the margin, is never taken for a failure', async () => {
  const s = await serve();
  tg.longPollLateMs = 800;
  try {
    const from = tg.pollsAnswered(TOKEN);
    const troubles: string[] = [];
    await waitFor(() => {
      const t = s.agent.trouble();
      if (t) troubles.push(t);
      return tg.pollsAnswered(TOKEN) >= from + 3;
    }, 15_000);
    assert.deepEqual(troubles, []);
  } finally {
    tg.longPollLateMs = 0;
    await s.close(true);
  }
});

test("the production timing leaves the control plane's 5 s watch inside the issue's 30 s, with room", () => {
  // The deadline, undici's one-second check of it, the watch's interval and a check of its own.
  assert.ok(pollDeadlineMs(LONG_POLL) + 1_000 + 5_000 <= 27_000, `deadline ${pollDeadlineMs(LONG_POLL)} ms`);
  // A late answer of up to 4 s (and undici's half-second early check) is still a healthy one.
  assert.ok(LONG_POLL.marginMs >= 4_500);
});

test('TELEGRAM_POLL_TIMEOUT_SECONDS takes whole seconds from 1 to 50 (Telegram holds a poll at most 50 s)', () => {
  const env = (v: string) => ({ ADMIN_TOKEN: 'admin-token-0123456789abcdef', TELEGRAM_POLL_TIMEOUT_SECONDS: v });
  assert.deepEqual(loadHostConfig(env('20')).telegramLongPoll, { timeoutS: 20 });
  assert.equal(loadHostConfig({ ADMIN_TOKEN: 'admin-token-0123456789abcdef' }).telegramLongPoll, undefined);
  for (const bad of ['0', '51', '2.5', 'soon'])
    assert.throws(
      () => loadHostConfig(env(bad)),
      (err: Error) => err instanceof AgentConfigError && /TELEGRAM_POLL_TIMEOUT_SECONDS/.test(err.message),
    );
});
