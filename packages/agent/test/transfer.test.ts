// Moving an assistant between two real agent hosts over HTTP (0024, "Moving an assistant"): its
// users' memory and a pending reminder go along, the reminder comes once (from the new host only),
// a retried import changes nothing, a tampered export is refused, and a purge leaves no row.
import { DEFAULT_BURST_MS } from '@berth/contracts/settings';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { captureLogs } from './helpers/serve.js';
import { SessionStore } from '../src/storage/sessions.js';
import { AgentHost } from '../src/runtime/host.js';
import { hostApp } from '../src/runtime/server.js';

const ADMIN = 'host-admin-token-for-transfer-tests-0123';
const TOKEN = '7300000001:AAtransferTestsBotTokenAbcdefghijk';
let tg: FakeTelegram;
let provider: FakeModelProvider;

before(async () => {
  tg = await new FakeTelegram().start();
  tg.addBot(TOKEN);
  provider = await new FakeModelProvider().start();
});
after(async () => {
  await tg.stop();
  await provider.stop();
});

async function startHost() {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-move-')));
  const log = captureLogs().logger;
  const host = new AgentHost(store, log);
  const app = hostApp(host, log, ADMIN, { defaultTelegramApiRoot: tg.url });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const call = async (method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown, token = ADMIN) => {
    const res = await request(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
  };
  const rows = (table: string) =>
    (store.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE agent = 'mover'`).get() as { n: number }).n;
  return {
    call,
    rows,
    async close() {
      await app.close();
      await host.close();
      store.close();
    },
  };
}

const mount = {
  gatewayToken: 'gw-transfer-0123456789abcdef',
  model: { provider: 'fakeai', baseUrl: '', modelId: 'm', apiKey: 'sk-test-model-key-0123456789abcdef' },
  telegram: { botToken: TOKEN },
};
const sentText = (text: string) => tg.sent.filter((m) => m.text === text).length;

test('an assistant moved to another host keeps its memory and pending reminder; delivered once, by the new host', async () => {
  const a = await startHost();
  const b = await startHost();
  try {
    const m = { ...mount, model: { ...mount.model, baseUrl: provider.url } };
    assert.equal((await a.call('PUT', '/agents/mover', m)).status, 200);
    // Memory, a reminder the old host delivers before the move, and one still pending at the move.
    provider.queue.push({ toolCalls: [{ name: 'remember', arguments: { fact: 'The user drinks green tea.' } }] });
    provider.queue.push({ content: 'Noted.' });
    tg.userSends(TOKEN, 801, { text: 'remember that I drink green tea' });
    await tg.waitForSent((x) => x.chat_id === 801 && x.text === 'Noted.');
    // The answer starts once the user's burst has gathered (DEFAULT_BURST_MS): due times count from then.
    const soon = new Date(Date.now() + 1500 + DEFAULT_BURST_MS).toISOString();
    const later = new Date(Date.now() + 6000 + DEFAULT_BURST_MS).toISOString();
    provider.queue.push({
      toolCalls: [
        { name: 'schedule_message', arguments: { text: 'before the move', at: soon } },
        { name: 'schedule_message', arguments: { text: 'after the move', at: later } },
      ],
    });
    provider.queue.push({ content: 'Two reminders set.' });
    tg.userSends(TOKEN, 801, { text: 'remind me twice' });
    await tg.waitForSent((x) => x.chat_id === 801 && x.text === 'Two reminders set.');
    await tg.waitForSent((x) => x.chat_id === 801 && x.text === '⏰ before the move', 10_000);

    // The move: the old host stops the assistant and hands its data over; the new one takes it in.
    const out = await a.call('POST', '/agents/mover/handover');
    assert.equal(out.status, 200);
    assert.deepEqual((await a.call('GET', '/agents')).json.agents, [], 'the old host runs it no more');
    assert.equal(out.json.tables.memory.length, 1);
    assert.deepEqual(
      out.json.tables.schedules.map((s: { text: string; status: string }) => [s.text, s.status]).sort(),
      [
        ['after the move', 'active'],
        ['before the move', 'done'],
      ],
      'the claim state goes along',
    );
    assert.equal((await a.call('POST', '/agents/mover/handover')).json.id, out.json.id, 'asked again: the same export');

    // Bad input changes nothing: a tampered export, no token.
    const tampered = structuredClone(out.json);
    tampered.tables.schedules[0].next_at = Date.now();
    const bad = await b.call('PUT', '/agents/mover/user-data', tampered);
    assert.equal(bad.status, 400);
    assert.match(bad.json.error.message, /does not match/);
    assert.equal(
      (await b.call('PUT', '/agents/mover/user-data', out.json, 'wrong-token-0123456789abcdef')).status,
      401,
    );
    assert.equal(b.rows('schedules'), 0);

    assert.deepEqual((await b.call('PUT', '/agents/mover/user-data', out.json)).json, {
      imported: true,
      id: out.json.id,
    });
    assert.equal((await b.call('PUT', '/agents/mover', m)).status, 200);
    await tg.waitForSent((x) => x.chat_id === 801 && x.text === '⏰ after the move', 15_000);
    // A retried move (the control plane did not see the answer) imports nothing again.
    assert.deepEqual((await b.call('PUT', '/agents/mover/user-data', out.json)).json, {
      imported: false,
      id: out.json.id,
    });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(sentText('⏰ after the move'), 1, 'once');
    assert.equal(sentText('⏰ before the move'), 1, 'the occurrence claimed before the move is not sent again');

    // The memory block came along: the next model call for that user carries it.
    provider.queue.push({ content: 'Tea it is.' });
    tg.userSends(TOKEN, 801, { text: 'what do I drink?' });
    await tg.waitForSent((x) => x.chat_id === 801 && x.text === 'Tea it is.');
    const last = provider.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
    assert.ok(last.some((x) => x.role === 'system' && x.content.includes('The user drinks green tea.')));

    // The old host's copy is purged once the new one has it: no row of the assistant is left there.
    await a.call('DELETE', '/agents/mover?purge=true');
    for (const t of ['memory', 'message_search', 'schedules', 'messages', 'summaries', 'telegram_chats'])
      assert.equal(a.rows(t), 0, `${t} on the old host`);

    // Delete: the new host purges everything, and a reminder still pending is never sent.
    provider.queue.push({
      toolCalls: [
        { name: 'schedule_message', arguments: { text: 'never', at: new Date(Date.now() + 2000).toISOString() } },
      ],
    });
    provider.queue.push({ content: 'Set.' });
    tg.userSends(TOKEN, 801, { text: 'one more' });
    await tg.waitForSent((x) => x.chat_id === 801 && x.text === 'Set.');
    assert.equal((await b.call('DELETE', '/agents/mover?purge=true')).status, 200);
    for (const t of [
      'memory',
      'message_search',
      'schedules',
      'messages',
      'summaries',
      'telegram_chats',
      'user_data_imports',
    ])
      assert.equal(b.rows(t), 0, `${t} on the new host after delete`);
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(sentText('⏰ never'), 0);
  } finally {
    await a.close();
    await b.close();
  }
});
