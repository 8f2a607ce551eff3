// bench:fairness — does one tenant's flood slow another tenant's chat? A quiet tenant sends short
// chats at a fixed rate (open loop) to its managed assistant; its p50/p99 is measured alone, then
// while a noisy tenant keeps its chat caps full of slow model streams (several keys, several
// assistants, all through the same agent host and model gateway), in the same run.
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { Pool } from 'undici';
import { ms, openLoop, report, type LoadResult } from './load.js';
import { start, table } from './processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.FAIRNESS_RATE ?? 10);
const NOISY_ASSISTANTS = Number(process.env.NOISY_ASSISTANTS ?? 8);
/** Streams each noisy key keeps open (its CHAT_CONCURRENCY_PER_KEY, 20 by default). */
const NOISY_PER_KEY = Number(process.env.NOISY_PER_KEY ?? 20);
/** A noisy stream: 50 words, one every 100 ms (5 s). */
const SLOW = { content: 'word '.repeat(50), chunkDelayMs: 100 };

const router = await new FakeModelProvider().start();
router.fallback = (body: any) => (body.messages.at(-1)?.content === 'flood' ? SLOW : { content: 'pong' });
const tg = await new FakeTelegram().start();
const bots = Array.from({ length: NOISY_ASSISTANTS + 1 }, (_, i) => {
  const token = `${7_500_000_000 + i}:AAfairnessBenchBotToken_${String(i).padStart(12, '0')}`;
  tg.addBot(token);
  return token;
});
const cp = await start('fairness-control-plane.ts', [router.url, tg.url, JSON.stringify(bots)], (l) =>
  l.startsWith('{"ready":true') ? l : undefined,
);
process.on('exit', () => cp.child.kill('SIGKILL'));
const info = JSON.parse(cp.value) as {
  url: string;
  quietKey: string;
  quietId: string;
  noisyKeys: string[];
  noisyIds: string[];
};

const chat = (key: string, id: string, content: string, stream: boolean) => ({
  method: 'POST' as const,
  path: `/api/v1/assistants/${id}/chat/completions`,
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'assistant-agent', stream, messages: [{ role: 'user', content }] }),
});
const quiet = { origin: info.url, ...chat(info.quietKey, info.quietId, 'hi', false) };

/** The noisy tenant: every key keeps NOISY_PER_KEY slow streams going until stopped. */
function flood() {
  const pool = new Pool(info.url, { connections: 1024 });
  let stop = false;
  const counts = { streams: 0, refused: 0, failed: 0 };
  const loops = info.noisyKeys.flatMap((key, k) =>
    Array.from({ length: NOISY_PER_KEY }, async (_, i) => {
      while (!stop) {
        const id = info.noisyIds[(k * NOISY_PER_KEY + i) % info.noisyIds.length]!;
        try {
          const res = await pool.request(chat(key, id, 'flood', true));
          await res.body.dump();
          if (res.statusCode === 429) {
            counts.refused++;
            await new Promise((r) => setTimeout(r, 1000));
          } else if (res.statusCode === 200) counts.streams++;
          else counts.failed++;
        } catch {
          counts.failed++;
        }
      }
    }),
  );
  return {
    counts,
    async end() {
      stop = true;
      await Promise.all(loops);
      await pool.close();
    },
  };
}

process.stderr.write(`quiet tenant alone, ${RATE} req/s…\n`);
const alone: LoadResult = await openLoop(quiet, RATE, SECONDS);
process.stderr.write('noisy tenant floods…\n');
const noisy = flood();
await new Promise((r) => setTimeout(r, 6000)); // every noisy stream open and flowing
process.stderr.write(`quiet tenant during the flood, ${RATE} req/s…\n`);
const during: LoadResult = await openLoop(quiet, RATE, SECONDS);
await noisy.end();

console.log(
  `\nbench:fairness (quiet tenant: non-streamed chats at ${RATE} req/s for ${SECONDS} s; noisy tenant: ${info.noisyKeys.length} keys × ${NOISY_PER_KEY} slow streams over ${info.noisyIds.length} managed assistants; one agent host, one model gateway)\n`,
);
table(
  ['quiet tenant', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
  [
    ['alone (baseline)', alone.rps.toFixed(1), ms(alone.p50), ms(alone.p99), String(alone.errors)],
    ['while the noisy tenant floods', during.rps.toFixed(1), ms(during.p50), ms(during.p99), String(during.errors)],
  ],
);
console.log(
  `\nnoisy tenant: ${noisy.counts.streams} streams completed, ${noisy.counts.refused} refused (429 at its caps), ${noisy.counts.failed} failed`,
);
report('fairness', { rate: RATE, alone, during, noisy: noisy.counts, addedP99: during.p99 - alone.p99 });
cp.child.kill('SIGINT');
await router.stop();
await tg.stop();
process.exit(0);
