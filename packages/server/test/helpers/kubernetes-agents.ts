// A control plane on WORKER_BACKEND=kubernetes against FakeKubernetes, whose fake kubelet runs
// each pod as the real agent process (a claim's volume is a directory here that outlives the pod).
// Shared by the tests of what happens to an assistant's users' data as its pods come and go.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { FakeKubelet, FakeKubernetes, spawnRunner } from '@berth/testkit';
import { startE2E, type E2E } from './e2e.js';
import { until as poll } from './until.js';

export const AGENT_BIN = join(createRequire(import.meta.url).resolve('@berth/agent'), '../../bin/berth-agent.js');
export const NS = 'berth-workers';

export interface KubernetesAgents {
  api: FakeKubernetes;
  kubelet: FakeKubelet;
  e: E2E;
  close(): Promise<void>;
}

/** The cluster, then the control plane on it with `env` (namespace, image, deploy timeout set). */
export async function startKubernetesAgents(env: Record<string, string>): Promise<KubernetesAgents> {
  const api = await new FakeKubernetes({ namespaces: [NS] }).start();
  const kubelet = await new FakeKubelet(api, spawnRunner(AGENT_BIN)).start();
  const dir = mkdtempSync(join(tmpdir(), 'berth-kube-agents-'));
  writeFileSync(join(dir, 'config'), api.kubeconfig(NS));
  process.env.KUBECONFIG = join(dir, 'config');
  const e = await startE2E(
    {
      WORKER_BACKEND: 'kubernetes',
      KUBERNETES_NAMESPACE: NS,
      AGENT_IMAGE: 'berth-agent:test',
      DEPLOY_TIMEOUT_SECONDS: '60',
      ...env,
    },
    { kubernetesUrlFor: kubelet.urlFor },
  );
  return {
    api,
    kubelet,
    e,
    async close() {
      await e.close();
      await kubelet.stop();
      await api.stop();
    },
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
