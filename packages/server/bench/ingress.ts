// bench:ingress — what webhook ingress costs a message on its way in. A real control plane and its
// agent host answer a loopback Telegram (FakeTelegram as a local Bot API server); each of MESSAGES
// users sends one message, RATE a second (a fixed rate: the latency of each is the point, not how
// many fit), and the figure is the time from the message leaving "Telegram" to the first Bot API
// call it causes (the typing indicator, or the answer). Two control planes, one after the other in
// the same run: TELEGRAM_DELIVERY=polling (the worker's long poll takes the update) and webhook
// (Telegram POSTs it to /hooks/telegram/…, the control plane stores it, its job runner hands it to
// the worker); then WhatsApp on a third (Meta POSTs a signed message to /hooks/whatsapp/…; the
// first call it causes is the read receipt with the typing indicator). The users' bursts are not
// waited for (settings.burstMs 0), so the model answers at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeModelProvider, FakeTelegram, FakeWhatsApp } from '@berth/testkit';
import { defaultSettings } from '@berth/contracts/settings';
import { createRuntime, loadConfig } from '@berth/server';
import { ms, percentile as pct, report } from './load.js';
import { freePort, table } from './processes.js';
import { benchKey, buyAndActivate, keyCaller, routerCatalog } from './slots.js';

const RATE = Number(process.env.INGRESS_RATE ?? 20);
const MESSAGES = Number(process.env.INGRESS_MESSAGES ?? 300);
const WARM = 10;

const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

interface Run {
  mode: 'polling' | 'webhook' | 'whatsapp';
  latencies: number[];
  answered: number;
}

async function run(mode: Run['mode'], bot: string, firstChat: number): Promise<Run> {
  const wa = mode === 'whatsapp' ? await new FakeWhatsApp().start() : undefined;
  const tg = await new FakeTelegram().start();
  tg.localBotApi = true;
  const provider = await new FakeModelProvider().start();
  provider.fallback = () => ({ content: 'ok' });
  const dataDir = mkdtempSync(join(tmpdir(), `berth-bench-ingress-${mode}-`));
  const catalog = routerCatalog(dataDir, provider.url);
  tg.addBot(bot);
  const port = await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    TELEGRAM_API_ROOT: tg.url,
    TELEGRAM_DELIVERY: mode === 'webhook' ? 'webhook' : 'polling',
    ...(wa ? { WHATSAPP_API_ROOT: wa.url } : {}),
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    MODEL_CATALOG: catalog,
    MANAGED_PROVIDER_API_KEY: 'sk-bench',
    LOG_LEVEL: 'warn',
  });
  const rt = await createRuntime(config, {});
  const url = await rt.app.listen({ port, host: '127.0.0.1' });
  try {
    const key = await benchKey(rt, `bench-ingress-${mode}@example.com`);
    const call = keyCaller(url, key);
    const id = await buyAndActivate(rt, key, 'byok', {
      name: `bench ${mode}`,
      modelProvider: 'openrouter',
      modelId: 'router/bench',
      modelApiKey: 'sk-test-model-key-0123456789abcdef',
      messengerBotToken: bot,
    });
    for (let t0 = Date.now(); (await call('GET', `/api/v1/assistants/${id}/status`)).json.data.status !== 'active'; ) {
      if (Date.now() - t0 > 30_000) throw new Error(`${mode}: not active within 30 s`);
      await sleep(20);
    }
    const put = await call('PUT', `/api/v1/assistants/${id}/settings`, { ...defaultSettings(), burstMs: 0 });
    if (put.status !== 200) throw new Error(`settings answered ${put.status}`);

    // When each message left the platform (by a key of its own), and when its first call arrived.
    const sentAt = new Map<string, number>();
    const firstCall = new Map<string, number>();
    const arrived = (key: string) => {
      if (sentAt.has(key) && !firstCall.has(key)) firstCall.set(key, performance.now());
    };
    let send: (i: number) => void;
    let answered: () => number;
    if (wa) {
      const number = wa.addNumber();
      const put = await call('PUT', `/api/v1/assistants/${id}/channels/whatsapp`, {
        phoneNumberId: number.phoneNumberId,
        accessToken: number.accessToken,
        appSecret: number.appSecret,
      });
      if (put.status !== 200) throw new Error(`channel PUT answered ${put.status}`);
      const { webhookUrl, verifyToken } = put.json.data.details;
      await wa.subscribe(number.phoneNumberId, `${url}${new URL(webhookUrl).pathname}`, verifyToken);
      wa.events.on('read', (r: { messageId: string }) => arrived(r.messageId));
      const users = new Set<string>();
      send = (i) => {
        const user = { waId: String(16_505_000_000 + i), name: `User ${i}` };
        users.add(user.waId);
        const { id: messageId, payload } = wa.messagePayload(number.phoneNumberId, user, { text: `hello ${i}` });
        // The user wrote now: the 24-hour window is open for the answer.
        wa.lastWroteAt(number.phoneNumberId, user.waId, Date.now());
        sentAt.set(messageId, performance.now());
        void wa.deliver(number.phoneNumberId, payload);
      };
      answered = () => wa.sent.filter((m) => users.has(m.to)).length;
    } else {
      tg.onCall = (_method, _token, params) => arrived(String(params?.chat_id));
      // In webhook mode the clock starts when the POST leaves: this fake delivers a bot's updates one
      // at a time (Telegram opens up to 40 connections), and its queue is not Berth's latency.
      if (mode === 'webhook')
        tg.onWebhookPost = (_token, update) => {
          const chat = String(update?.message?.chat?.id);
          if (sentAt.has(chat) && !firstCall.has(chat)) sentAt.set(chat, performance.now());
        };
      send = (i) => {
        sentAt.set(String(firstChat + i), performance.now());
        tg.userSends(bot, firstChat + i, { text: `hello ${i}` });
      };
      answered = () => tg.sent.filter((m) => sentAt.has(String(m.chat_id))).length;
    }
    // Warm the path (first turns compile and open connections), then the measured messages at RATE.
    for (let i = 0; i < WARM; i++) send(i);
    for (let t0 = Date.now(); answered() < WARM; ) {
      if (Date.now() - t0 > 30_000) throw new Error(`${mode}: the warm-up was not answered`);
      await sleep(10);
    }
    const measured: string[] = [];
    const start = performance.now();
    for (let i = 0; i < MESSAGES; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const before = new Set(sentAt.keys());
      send(WARM + i);
      measured.push(...[...sentAt.keys()].filter((k) => !before.has(k)));
    }
    for (let t0 = Date.now(); answered() < WARM + MESSAGES; ) {
      if (Date.now() - t0 > 60_000) break;
      await sleep(20);
    }
    const latencies = measured.filter((k) => firstCall.has(k)).map((k) => firstCall.get(k)! - sentAt.get(k)!);
    return { mode, latencies, answered: answered() - WARM };
  } finally {
    tg.onCall = undefined;
    tg.onWebhookPost = undefined;
    await rt.close();
    await tg.stop();
    await wa?.stop();
    await provider.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const polling = await run('polling', '7100008801:AAingressBenchPollingToken_000000000', 6_100_000);
const webhook = await run('webhook', '7100008802:AAingressBenchWebhookToken_000000000', 6_200_000);
const whatsapp = await run('whatsapp', '7100008803:AAingressBenchWhatsAppToken_00000000', 6_300_000);

console.log(
  `\nbench:ingress (local backend, real agent host; ${MESSAGES} users, one message each, ${RATE}/s; message sent → first platform API call it causes)\n`,
);
table(
  ['', 'p50 ms', 'p99 ms', 'max ms', 'answered'],
  [polling, webhook, whatsapp].map((r) => [
    {
      polling: 'Telegram long poll (baseline)',
      webhook: 'Telegram webhook → ingress → worker',
      whatsapp: 'WhatsApp webhook → ingress → worker',
    }[r.mode],
    ms(pct(r.latencies, 50)),
    ms(pct(r.latencies, 99)),
    ms(Math.max(...r.latencies)),
    `${r.answered}/${MESSAGES}`,
  ]),
);
report('ingress', {
  rate: RATE,
  messages: MESSAGES,
  pollingP50: pct(polling.latencies, 50),
  pollingP99: pct(polling.latencies, 99),
  webhookP50: pct(webhook.latencies, 50),
  webhookP99: pct(webhook.latencies, 99),
  whatsappP50: pct(whatsapp.latencies, 50),
  whatsappP99: pct(whatsapp.latencies, 99),
  allAnswered: [polling, webhook, whatsapp].every((r) => r.answered === MESSAGES),
});
