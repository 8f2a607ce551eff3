// What the tests of an assistant's users' data on Kubernetes share (the cluster and control plane
// come from fake-cluster.ts): polling at pod speed, and a user leaving a fact and a reminder.
import type { E2E } from './e2e.js';
import { KUBE_NS, startKubernetesE2E, type KubernetesE2E } from './fake-cluster.js';
import { until as poll } from './until.js';

export const NS = KUBE_NS;
export type KubernetesAgents = KubernetesE2E;

/** The cluster, then the control plane on it with `env` (namespace, image, deploy timeout set). */
export const startKubernetesAgents = startKubernetesE2E;

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
