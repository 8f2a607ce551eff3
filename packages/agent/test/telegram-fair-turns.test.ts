// Fair turns within one bot (issue 57 R3): one user's slow documents wait on that user alone.
// Documents go to a stand-in for the host's document pool that holds each one until the test lets
// it go, so "slow" is exact: the other users' answers must arrive while the documents are held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServe } from './helpers/serve.js';
import { fakeTelegramBed, waitFor } from './helpers/bed.js';
import { en as TEXTS } from '../src/channels/telegram/texts/en.js';
import type { DocumentReader } from '../src/media/document-pool.js';
import type { TelegramLimits } from '../src/channels/telegram/bot.js';

const TOKEN = '7000000131:AAfairTurnsFakeTokenForAgentTests_abc';
const { tg, provider } = fakeTelegramBed(TOKEN);

/** Reads text documents at once, except those whose words start with "hold": those wait for let(). */
class HeldDocuments implements DocumentReader {
  readonly held: Array<{ text: string; release: () => void }> = [];
  started = 0;

  read(_kind: 'pdf' | 'text', bytes: Uint8Array) {
    const text = Buffer.from(bytes).toString('utf8');
    this.started++;
    if (!text.startsWith('hold')) return Promise.resolve({ text });
    return new Promise<{ text: string }>((resolve) => this.held.push({ text, release: () => resolve({ text }) }));
  }

  /** Lets every held document be read, and any that arrive later. */
  letAll() {
    for (const h of this.held.splice(0)) h.release();
    this.read = (_kind, bytes) => Promise.resolve({ text: Buffer.from(bytes).toString('utf8') });
  }
}

// Telegram's one message a second per chat would make 20 answers take 20 s; the turns are what is tested.
const PACING = { perChatMs: 0, perGroupPerMinute: 1000, perBotPerSecond: 1000, perBotCallsPerSecond: 1000 };

async function serve(documents: HeldDocuments, limits: TelegramLimits = { maxConcurrent: 8, perChatPerMinute: 20 }) {
  const s = await startServe({
    provider,
    telegram: tg,
    botToken: TOKEN,
    documents,
    config: { telegram: { botToken: TOKEN, apiRoot: tg.url, limits: { ...limits, pacing: PACING } } },
  });
  await waitFor(() => s.agent.health().ready, 10_000);
  return s;
}

const sendDoc = (chat: number, name: string, words: string) =>
  tg.userSends(TOKEN, chat, { document: tg.document(TOKEN, Buffer.from(words), name, 'text/plain') });
const answersTo = (chat: number) => tg.sentTo(chat).filter((m) => m.text.startsWith('You said:'));

test("one user's 20 slow documents do not hold up another user's words or file; they are all answered, in order", async () => {
  const docs = new HeldDocuments();
  const s = await serve(docs);
  try {
    for (let i = 0; i < 20; i++) sendDoc(901, `report-${i}.txt`, `hold report ${i}`);
    await waitFor(() => docs.held.length >= 1);

    tg.userSends(TOKEN, 902, { text: 'hello from another user' });
    const words = await tg.waitForSent((m) => m.chat_id === 902, 5000);
    assert.equal(words.text, 'You said: hello from another user');
    sendDoc(903, 'note.txt', 'a small note');
    const file = await tg.waitForSent((m) => m.chat_id === 903, 5000);
    assert.match(file.text, /^You said: \[document note\.txt\]\s+a small note$/);
    // Both answered while the first user's documents were still held: none of theirs is answered.
    assert.ok(docs.held.length >= 1);
    assert.equal(answersTo(901).length, 0);
    // The first user's documents go one at a time: their backlog waits on them, not on the pool.
    assert.equal(docs.held.length, 1);

    docs.letAll();
    await waitFor(() => answersTo(901).length === 20, 20_000);
    assert.deepEqual(
      answersTo(901).map((m) => /report-(\d+)\.txt/.exec(m.text)?.[1]),
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
  } finally {
    docs.letAll();
    await s.close(true);
  }
});

test("a user's waiting line is bounded: past it, a message is refused in words, and the bot's line is bounded too", async () => {
  const docs = new HeldDocuments();
  const s = await serve(docs, { maxConcurrent: 8, perChatPerMinute: 20, maxWaitingPerUser: 2, maxWaiting: 3 });
  try {
    // One held and two waiting; the fourth and fifth are refused.
    for (let i = 0; i < 5; i++) sendDoc(911, `a-${i}.txt`, `hold a ${i}`);
    await waitFor(() => tg.sentTo(911).filter((m) => m.text === TEXTS.queueFull).length === 2);
    // Another user's files take the second media lane: the first is read at once, the second held.
    sendDoc(912, 'b-0.txt', 'b zero');
    await tg.waitForSent((m) => m.chat_id === 912 && m.text.includes('b zero'), 5000);
    sendDoc(912, 'b-1.txt', 'hold b 1');
    await waitFor(() => docs.held.length === 2);
    // A third user's file waits for a lane (the bot's third waiting message); their next finds the
    // bot's line full.
    sendDoc(913, 'c-0.txt', 'hold c 0');
    sendDoc(913, 'c-1.txt', 'c one');
    assert.equal((await tg.waitForSent((m) => m.chat_id === 913, 5000)).text, TEXTS.queueFull);
    // Words are never held behind files: the waiting lines are full, and this is answered at once.
    tg.userSends(TOKEN, 914, { text: 'still there?' });
    assert.equal((await tg.waitForSent((m) => m.chat_id === 914, 5000)).text, 'You said: still there?');

    docs.letAll();
    await waitFor(() => answersTo(911).length === 3 && answersTo(912).length === 2 && answersTo(913).length === 1);
    assert.equal(tg.sentTo(911).filter((m) => m.text === TEXTS.queueFull).length, 2);
  } finally {
    docs.letAll();
    await s.close(true);
  }
});
