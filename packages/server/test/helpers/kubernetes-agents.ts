// What the tests of an assistant's users' data on Kubernetes share (the cluster and control plane
// come from fake-cluster.ts): polling at pod speed, and a user leaving a fact and a reminder.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { E2E } from './e2e.js';
import { KUBE_NS, startKubernetesE2E, type KubernetesE2E } from './fake-cluster.js';
import { until as poll } from './until.js';

export const NS = KUBE_NS;
export type KubernetesAgents = KubernetesE2E;

/** The cluster, then the control plane on it with `env` (namespace, image, deploy timeout set). */
export const startKubernetesAgents = startKubernetesE2E;

/**
 * The cluster and the control plane on it for a whole test file (started before its tests,
 * stopped after them), with `bot` known to FakeTelegram. Call the result inside a test.
 */
export function agentsForFile(env: Record<string, string>, bot: string): () => KubernetesAgents {
  let k: KubernetesAgents | undefined;
  before(async () => {
    k = await startKubernetesAgents(env);
    k.e.tg.addBot(bot);
  });
  after(async () => {
    await k?.close();
  });
  return () => {
    if (!k) throw new Error('the cluster is not started (agentsForFile runs in before())');
    return k;
  };
}

/** Polls every 100 ms (pods start in seconds), 30 s unless told. */
export const until = <T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000) =>
  poll(what, fn, timeoutMs, 100);

/** The next message the bot sends to `chat` from now on (earlier ones do not count). */
export function nextSent(e: E2E, chat: number, timeoutMs = 10_000) {
  const from = e.tg.sent.length;
  return e.tg.waitForSent((m) => m.chat_id === chat && e.tg.sent.indexOf(m) >= from, timeoutMs);
}

/** A user tells the assistant a fact it remembers (the model calls `remember`), answered `Noted.` (returned). */
export async function rememberFact(e: E2E, bot: string, chat: number, fact: string) {
  e.provider.queue.push({ toolCalls: [{ name: 'remember', arguments: { fact } }] });
  e.provider.queue.push({ content: 'Noted.' });
  const reply = nextSent(e, chat);
  e.tg.userSends(bot, chat, { text: `remember: ${fact}` });
  return (await reply).text;
}

/** The user asks who they are: true when the model was given `fact` from the assistant's memory. */
export async function recalls(e: E2E, bot: string, chat: number, fact: string): Promise<boolean> {
  e.provider.queue.push({ content: 'You are who you said.' });
  const reply = nextSent(e, chat);
  e.tg.userSends(bot, chat, { text: 'who am I?' });
  await reply;
  const call = e.provider.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  return call.some((m) => m.role === 'system' && m.content.includes(fact));
}

/**
 * The reminder `text` was sent once. Waits on the wall clock: a second sender (the pod that was
 * replaced, had it lived on) would have sent it at the same due time, already passed; 2 s bounds
 * that send's arrival, and no event marks "no other pod will".
 */
export async function assertSentOnce(e: E2E, text: string) {
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(e.tg.sent.filter((m) => m.text === text).length, 1, `"${text}" once`);
}

/**
 * The reminder `text`, due at `due` (epoch ms), was never sent. Waits on the wall clock until a
 * second past its due time: the pods run the real agent on the system clock, and only its due
 * time passing can show that nothing sends it.
 */
export async function assertNeverSent(e: E2E, text: string, due: number) {
  await new Promise((r) => setTimeout(r, Math.max(0, due + 1000 - Date.now())));
  assert.equal(e.tg.sent.filter((m) => m.text === text).length, 0, `"${text}" never sent`);
}

/** What a user left with an assistant before its pod moved or was lost. */
export interface LeftData {
  bot: string;
  chat: number;
  fact: string;
  reminder: string;
  /** When the reminder is due (epoch ms). */
  due: number;
}

/** A user tells the assistant `fact` and asks for `reminder` in 15 s: what `dataSurvived` checks later. */
export async function leaveData(e: E2E, bot: string, chat: number, fact: string, reminder: string) {
  assert.equal(await rememberFact(e, bot, chat, fact), 'Noted.');
  const due = Date.now() + 15_000;
  assert.equal(await scheduleReminder(e, bot, chat, reminder, due), 'Reminder set.');
  return { bot, chat, fact, reminder, due } satisfies LeftData;
}

/** Once the reminder has come: it came once, and the assistant still knows the fact (`what` if not). */
export async function dataSurvived(e: E2E, left: LeftData, what: string) {
  await assertSentOnce(e, `⏰ ${left.reminder}`);
  assert.ok(await recalls(e, left.bot, left.chat, left.fact), what);
}

/** A user asks for a reminder `text` at `due` (epoch ms), answered `Reminder set.` (returned). */
export async function scheduleReminder(e: E2E, bot: string, chat: number, text: string, due: number) {
  e.provider.queue.push({
    toolCalls: [{ name: 'schedule_message', arguments: { text, at: new Date(due).toISOString() } }],
  });
  e.provider.queue.push({ content: 'Reminder set.' });
  const reply = nextSent(e, chat);
  e.tg.userSends(bot, chat, { text: `remind me: ${text}` });
  return (await reply).text;
}
