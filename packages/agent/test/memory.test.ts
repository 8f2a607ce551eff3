// Per-user memory (remember / forget, one bounded system block), search over a user's own past
// messages, and the /memory and /forget commands: real SQLite, FakeTelegram, FakeModelProvider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { defaultSettings } from '@berth/contracts/settings';
import { GATEWAY, captureLogs, withServe } from './helpers/serve.js';
import { SessionStore } from '../src/storage/sessions.js';
import { userData } from '../src/storage/user-data.js';
import { MEMORY_ARCHIVE_MAX, MEMORY_BLOCK_CHARS } from '../src/storage/memory.js';
import { memoryTools } from '../src/tools/memory/index.js';
import { AgentHost } from '../src/runtime/host.js';
import { fakeTelegramBed } from './helpers/bed.js';

const TOKEN = '7000000026:AAmemoryFakeTokenForAgentTests_abcdef';
const { tg, provider } = fakeTelegramBed(TOKEN);

const systemTexts = (body: any): string[] =>
  body.messages.filter((m: any) => m.role === 'system').map((m: any) => String(m.content));
const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name);
const abort = new AbortController().signal;
/** A user's message and the assistant's answer, as a session stores one turn. */
const exchange = (said: string, answer: string) => [
  { role: 'user' as const, content: said },
  { role: 'assistant' as const, content: answer },
];

test('remember puts one memory block into every later model call of that user, and only theirs', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async () => {
    provider.queue.push({ toolCalls: [{ name: 'remember', arguments: { fact: 'Their dog is called Rex' } }] });
    provider.queue.push({ content: 'Noted.' });
    tg.userSends(TOKEN, 601, { text: 'remember that my dog is Rex' });
    await tg.waitForSent((m) => m.chat_id === 601 && m.text === 'Noted.');
    assert.ok(toolNames(provider.requests.at(-2)!.body).includes('remember'));

    // After /reset too: memory is per user, not per conversation.
    tg.userSends(TOKEN, 601, { text: '/reset' });
    await tg.waitForSent((m) => m.chat_id === 601 && m.text.startsWith('Started a new conversation'));
    tg.userSends(TOKEN, 601, { text: 'what is my dog called?' });
    await tg.waitForSent((m) => m.chat_id === 601 && m.text.includes('what is my dog called'));
    const mine = systemTexts(provider.requests.at(-1)!.body);
    assert.equal(mine.filter((t) => t.includes('Their dog is called Rex')).length, 1);

    tg.userSends(TOKEN, 602, { text: 'what is my dog called?' });
    await tg.waitForSent((m) => m.chat_id === 602);
    assert.ok(!JSON.stringify(provider.requests.at(-1)!.body).includes('Rex'), 'another user never sees it');

    tg.userSends(TOKEN, 601, { text: '/memory' });
    assert.match((await tg.waitForSent((m) => m.chat_id === 601 && m.text.startsWith('What I remember'))).text, /Rex/);
    tg.userSends(TOKEN, 602, { text: '/memory' });
    assert.match((await tg.waitForSent((m) => m.chat_id === 602 && m.text.includes('remember'))).text, /anything/);
    tg.userSends(TOKEN, 601, { text: '/forget' });
    await tg.waitForSent((m) => m.chat_id === 601 && m.text.startsWith('Done: I forgot 1'));
    tg.userSends(TOKEN, 601, { text: 'and now?' });
    await tg.waitForSent((m) => m.chat_id === 601 && m.text.includes('and now?'));
    assert.ok(!JSON.stringify(provider.requests.at(-1)!.body).includes('Rex'), '/forget cleared it');
  }));

test("on the chat API memory needs the body's user, in its own namespace; the settings can turn it off", () =>
  withServe({ provider }, async (s) => {
    const chat = (body: object) =>
      request(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${GATEWAY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'assistant-agent', ...body }),
      }).then(async (r) => ({ status: r.statusCode, body: (await r.body.json()) as any }));
    await chat({ messages: [{ role: 'user', content: 'hello' }] });
    assert.deepEqual(
      toolNames(provider.requests.at(-1)!.body).filter((n) => ['remember', 'schedule_message'].includes(n)),
      [],
      'no user, no memory tools',
    );
    provider.queue.push({ toolCalls: [{ name: 'remember', arguments: { fact: 'Alice prefers tea' } }] });
    provider.queue.push({ content: 'ok' });
    assert.equal((await chat({ user: 'alice', messages: [{ role: 'user', content: 'I like tea' }] })).status, 200);
    const offered = toolNames(provider.requests.at(-2)!.body);
    assert.ok(offered.includes('remember') && offered.includes('search_past_conversations'));
    assert.ok(!offered.includes('schedule_message'), 'the API has no chat to deliver reminders to');
    await chat({ user: 'alice', messages: [{ role: 'user', content: 'drink?' }] });
    assert.ok(systemTexts(provider.requests.at(-1)!.body).some((t) => t.includes('Alice prefers tea')));
    await chat({ user: 'bob', messages: [{ role: 'user', content: 'drink?' }] });
    assert.ok(!JSON.stringify(provider.requests.at(-1)!.body).includes('tea'));
    // Telegram user 601's namespace is not reachable by naming "601" on the API.
    userData(s.store).memory.remember('test-agent', 'tg:601', 'secret of a telegram user');
    await chat({ user: '601', messages: [{ role: 'user', content: 'who am I' }] });
    assert.ok(!JSON.stringify(provider.requests.at(-1)!.body).includes('secret of a telegram user'));

    s.agent.useSettings({ ...defaultSettings(), tools: { ...defaultSettings().tools, memory: false } });
    await chat({ user: 'alice', messages: [{ role: 'user', content: 'drink?' }] });
    assert.ok(!JSON.stringify(provider.requests.at(-1)!.body).includes('tea'), 'memory off: no block');
    assert.ok(!toolNames(provider.requests.at(-1)!.body).includes('remember'), 'memory off: no tool');
  }));

test("the archive keeps a user's newest facts and drops the oldest beyond its bound; other users keep theirs (issue 57 R7)", async () => {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-mem-')));
  try {
    const { memory } = userData(store);
    memory.remember('a1', 'tg:2', 'Another user likes tea');
    for (let i = 0; i < 400; i++) memory.remember('a1', 'tg:1', `Flood fact number ${i}. ${'x'.repeat(80)}`);
    const shown = memory.facts('a1', 'tg:1').length;
    assert.equal(memory.archivedCount('a1', 'tg:1'), MEMORY_ARCHIVE_MAX);
    // What is left is the newest: the block's facts and the MEMORY_ARCHIVE_MAX just before them.
    const firstKept = 400 - shown - MEMORY_ARCHIVE_MAX;
    assert.equal(memory.forget('a1', 'tg:1', `number ${firstKept - 1}.`), 0, 'older than the bound: gone');
    assert.equal(memory.forget('a1', 'tg:1', `number ${firstKept}.`), 1, 'the oldest kept');
    assert.deepEqual(
      memory.facts('a1', 'tg:2').map((f) => f.fact),
      ['Another user likes tea'],
    );
  } finally {
    store.close();
  }
});

test('a remember flood keeps the block within 2,000 characters and archives the oldest facts', async () => {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-mem-')));
  try {
    const data = userData(store);
    const [remember, forget] = memoryTools(data, { agent: 'a1', user: 'tg:1' });
    const answers: any[] = [];
    for (let i = 0; i < 60; i++)
      answers.push(JSON.parse(await remember!.run({ fact: `Injected fact number ${i} ${'x'.repeat(80)}` }, abort)));
    const block = data.memory.block('a1', 'tg:1')!;
    assert.ok(block.length <= MEMORY_BLOCK_CHARS, `block is ${block.length} chars`);
    assert.ok(block.includes('number 59'), 'the newest stays');
    assert.ok(!block.includes('number 0 '), 'the oldest left the block');
    const archived = data.memory.archivedCount('a1', 'tg:1');
    assert.equal(archived + data.memory.facts('a1', 'tg:1').length, 60, 'archived, not lost');
    assert.ok(
      answers.some((a) => a.archived?.length),
      'the tool says what it archived',
    );
    await assert.rejects(remember!.run({ fact: 'y'.repeat(501) }, abort), /at most 500/);
    await assert.rejects(forget!.run({ fact: 'no such thing' }, abort), /Nothing remembered/);
    assert.equal(JSON.parse(await forget!.run({ all: true }, abort)).forgotten, 60);
    assert.equal(data.memory.block('a1', 'tg:1'), undefined);
  } finally {
    store.close();
  }
});

test("search_past_conversations finds only the asking user's messages with this assistant", async () => {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-fts-')));
  try {
    store.append('a1', 'telegram:1:0', exchange('My favourite volcano is Etna', 'Nice'), 1e9, 'tg:1');
    store.append('a1', 'telegram:2:0', exchange('I climbed the volcano Stromboli', 'Wow'), 1e9, 'tg:2');
    store.append('a2', 'telegram:1:0', exchange('volcano Vesuvius for the other assistant', 'ok'), 1e9, 'tg:1');
    const search = memoryTools(userData(store), { agent: 'a1', user: 'tg:1' })[2]!;
    const found = JSON.parse(await search.run({ query: 'volcano' }, abort)).results as any[];
    assert.equal(found.length, 1);
    assert.match(found[0].snippet, /Etna/);
    // FTS5 syntax in the query is taken as words, never as a filter over other users' rows.
    const sneaky = JSON.parse(await search.run({ query: 'user:tg:2 OR "volcano" NEAR(Stromboli) *' }, abort))
      .results as any[];
    assert.ok(sneaky.every((r) => !/Stromboli|Vesuvius/.test(r.snippet)));
    // Trimmed history (and /reset) does not remove what can be searched.
    store.append('a1', 'telegram:1:0', exchange('z'.repeat(2000), 'ok'), 1000, 'tg:1');
    assert.equal(JSON.parse(await search.run({ query: 'Etna' }, abort)).results.length, 1);
  } finally {
    store.close();
  }
});

test('deleting an assistant with purge removes its memory, search index and schedules', async () => {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-purge-')));
  const host = new AgentHost(store, captureLogs().logger);
  try {
    const data = userData(store);
    for (const agent of ['gone', 'kept']) {
      data.memory.remember(agent, 'tg:1', 'a fact');
      store.append(agent, 's', [{ role: 'user', content: 'searchable words' }], 1e9, 'tg:1');
      data.schedules.add({
        id: `${agent.slice(0, 4)}0000`,
        agent,
        user: 'tg:1',
        chat: 'telegram:1',
        text: 't',
        task: false,
        at: null,
        cron: '0 9 * * *',
        timezone: null,
        nextAt: Date.now() + 1e9,
      });
    }
    await host.remove('gone', { purge: true });
    assert.equal(data.memory.block('gone', 'tg:1'), undefined);
    assert.equal(data.search.search('gone', 'tg:1', 'searchable').length, 0);
    assert.equal(data.schedules.countActive('gone'), 0);
    assert.ok(data.memory.block('kept', 'tg:1'));
    assert.equal(data.search.search('kept', 'tg:1', 'searchable').length, 1);
    assert.equal(data.schedules.countActive('kept'), 1);
  } finally {
    await host.close();
    store.close();
  }
});
