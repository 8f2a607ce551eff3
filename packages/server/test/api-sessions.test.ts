// An API session's transcript through the control plane (the playground restores its conversation
// after a reload), forgetting it, and the walls around it: another tenant, and Telegram's chats.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createApiKey } from '../src/index.js';
import { callApi } from './helpers/http-api.js';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';

const BOT = '7200000071:AAapiSessionsFakeBotTokenForTranscript_x';
let e: E2E;
let id: string;

before(async () => ({ e, id } = await startWithActiveBot(BOT)));
after(async () => e.close());

const chat = (content: string, session: string) =>
  e.api(
    'POST',
    `/api/v1/assistants/${id}/chat/completions`,
    { model: 'assistant-agent', messages: [{ role: 'user', content }] },
    { 'x-assistant-session-id': session },
  );

test('GET returns the session’s messages in order; DELETE forgets them and the next turn starts afresh', async () => {
  assert.equal((await chat('my colour is teal', 'play-1')).status, 200);
  assert.equal((await chat('which colour?', 'play-1')).status, 200);
  const got = await e.api('GET', `/api/v1/assistants/${id}/sessions/play-1`);
  assert.equal(got.status, 200, got.text);
  assert.deepEqual(got.json.data, {
    id: 'play-1',
    messages: [
      { role: 'user', content: 'my colour is teal' },
      { role: 'assistant', content: 'You said: my colour is teal' },
      { role: 'user', content: 'which colour?' },
      { role: 'assistant', content: 'You said: which colour?' },
    ],
  });
  const bearer = await callApi(e.url, '', 'GET', `/api/v1/assistants/${id}/sessions/play-1`, undefined, {
    authorization: `Bearer ${e.key}`,
  });
  assert.equal(bearer.status, 401, 'like endpoints 1-9, a transcript takes X-API-Key (or the session), not Bearer');

  const gone = await e.api('DELETE', `/api/v1/assistants/${id}/sessions/play-1`);
  assert.equal(gone.status, 204, gone.text);
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/sessions/play-1`)).json.error.code, 'NOT_FOUND');
  const before = e.provider.requests.length;
  await chat('hello again', 'play-1');
  const sent = e.provider.requests[before]!.body.messages as Array<{ role: string }>;
  assert.deepEqual(
    sent.filter((m) => m.role !== 'system').map((m) => m.role),
    ['user'],
    'the forgotten history is not sent to the model',
  );
});

test('an unknown session, a Telegram chat and another tenant’s assistant all answer 404', async () => {
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/sessions/never-used`)).status, 404);
  e.tg.userSends(BOT, 7101, { text: 'secret telegram words' });
  await e.tg.waitForSent((m) => m.chat_id === 7101);
  for (const telegramId of ['telegram:7101:0', 'telegram%3A7101%3A0']) {
    const res = await e.api('GET', `/api/v1/assistants/${id}/sessions/${telegramId}`);
    assert.equal(res.status, 404, `${telegramId}: ${res.text}`);
    assert.ok(!res.text.includes('secret telegram words'));
  }
  await chat('mine', 'private-1');
  const { key: other } = await createApiKey(
    { users: e.runtime.services.users, secrets: e.runtime.secrets, now: () => new Date() },
    `other-${Date.now()}@example.com`,
  );
  const foreign = await callApi(e.url, other, 'GET', `/api/v1/assistants/${id}/sessions/private-1`);
  assert.equal(foreign.status, 404);
  assert.equal(foreign.json.error.code, 'NOT_FOUND');
  const foreignDelete = await callApi(e.url, other, 'DELETE', `/api/v1/assistants/${id}/sessions/private-1`);
  assert.equal(foreignDelete.status, 404);
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/sessions/private-1`)).status, 200, 'still there');
});
