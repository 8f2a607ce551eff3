// bench:telegram — what streaming costs and buys on Telegram. A real agent host (child process)
// answers a loopback Telegram (FakeTelegram) from a model streaming 30 chunks 100 ms apart.
//  1. First preview: the delay from the model's first chunk to the first draft reaching Telegram,
//     p50/p99 over TURNS turns, next to the model's own first-chunk time (request → first chunk).
//  2. Host CPU per reply with CHATS chats at once: streamed (drafts) next to non-streamed
//     (TELEGRAM_STREAMING=false, the answer only) from the same run, same model, same fake.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { spawnHost } from './spawn-host.js';

const TURNS = Number(process.env.TELEGRAM_BENCH_TURNS ?? 60);
const CHATS = Number(process.env.TELEGRAM_BENCH_CHATS ?? 100);
const CHUNKS = 30;
const CHUNK_MS = 100;
const ADMIN = 'bench-admin-token-0123456789abcdef';
const TICK_MS = 10; // USER_HZ: /proc times are in 1/100 s on Linux
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const provider = await new FakeModelProvider().start();
const answer = Array.from({ length: CHUNKS }, (_, i) => (i % 10 === 0 ? `**Point ${i / 10 + 1}.**` : `word${i}`)).join(
  ' ',
);
provider.fallback = () => ({ content: answer, chunkDelayMs: CHUNK_MS });
const tg = await new FakeTelegram().start();

const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime + stime
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
async function waitFor(cond: () => boolean, what: string, ms = 300_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
}

async function host(streaming: boolean, token: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-telegram-'));
  const { child, url } = await spawnHost({
    ADMIN_TOKEN: ADMIN,
    DATA_DIR: dataDir,
    TELEGRAM_API_ROOT: tg.url,
    TELEGRAM_STREAMING: String(streaming),
    LOG_LEVEL: 'warn',
  });
  tg.addBot(token, `bench${streaming ? 's' : 'n'}_bot`);
  const res = await request(`${url}/agents/bench`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      gatewayToken: 'bench-gateway-token-0123456789',
      model: { provider: 'fakeai', baseUrl: provider.url, modelId: 'm', apiKey: 'sk-test-model-key-0123456789abcdef' },
      telegram: { botToken: token },
    }),
  });
  await res.body.dump();
  await waitFor(() => tg.activePolls(token) > 0, 'the bot polls', 30_000);
  return {
    pid: child.pid!,
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CHATS chats write at once; resolves when every one has its answer. Returns host CPU ms. */
async function burst(token: string, pid: number, base: number) {
  const before = cpuMs(pid);
  const sentBefore = tg.sent.length;
  for (let c = 0; c < CHATS; c++) tg.userSends(token, base + c, { text: `burst ${c}` });
  await waitFor(
    () => tg.sent.slice(sentBefore).filter((m) => m.token === token && m.text.startsWith('Point 1.')).length >= CHATS,
    'every chat answered',
  );
  return cpuMs(pid) - before;
}

// 1. First preview delay, streamed host, TURNS turns over a few chats (one at a time per chat).
const streamedToken = '9100000001:AAbenchTelegramStreamedToken_0001';
const streamed = await host(true, streamedToken);
const delays: number[] = [];
const firstChunk: number[] = [];
const LANES = 4;
await Promise.all(
  Array.from({ length: LANES }, async (_, lane) => {
    for (let i = lane; i < TURNS; i += LANES) {
      const chat = 5000 + lane;
      const text = `turn ${i}`;
      const drafts = tg.drafts.length;
      const sent = tg.sent.length;
      tg.userSends(streamedToken, chat, { text });
      await waitFor(() => tg.sent.slice(sent).some((m) => m.chat_id === chat), `turn ${i}`);
      const req = provider.requests.find((r) => r.body.messages.at(-1)?.content === text)!;
      const draft = tg.drafts.slice(drafts).find((d) => d.chat_id === chat);
      if (!draft || req.firstContentAt === undefined) throw new Error(`turn ${i}: no draft`);
      delays.push(draft.at - req.firstContentAt);
      firstChunk.push(req.firstContentAt - req.at);
    }
  }),
);

// 2. CPU per reply at CHATS concurrent chats: streamed, then non-streamed, same run.
const streamedCpu = await burst(streamedToken, streamed.pid, 10_000);
await streamed.close();
const plainToken = '9100000002:AAbenchTelegramPlainTokenXX_0002';
const plain = await host(false, plainToken);
const plainCpu = await burst(plainToken, plain.pid, 20_000);
await plain.close();
const draftsPerReply = tg.drafts.filter((d) => d.token === streamedToken && d.chat_id >= 10_000).length / CHATS;

const row = (name: string, value: string, baseline: string) =>
  console.log(`${name.padEnd(52)} ${value.padStart(12)}   ${baseline}`);
console.log(
  `\nbench:telegram  (${TURNS} turns; ${CHATS} chats at once; model: ${CHUNKS} chunks ${CHUNK_MS} ms apart)\n`,
);
row('', 'measured', 'baseline (same run)');
row(
  "first draft after the model's first chunk, p50",
  `${pct(delays, 50)} ms`,
  `model's own first chunk p50: ${pct(firstChunk, 50)} ms`,
);
row(
  "first draft after the model's first chunk, p99",
  `${pct(delays, 99)} ms`,
  `model's own first chunk p99: ${pct(firstChunk, 99)} ms`,
);
row(
  'host CPU per streamed reply',
  `${(streamedCpu / CHATS).toFixed(1)} ms`,
  `non-streamed reply: ${(plainCpu / CHATS).toFixed(1)} ms`,
);
row('drafts per streamed reply', draftsPerReply.toFixed(1), 'non-streamed: 0');
await tg.stop();
await provider.stop();
