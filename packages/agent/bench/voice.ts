// bench:voice: what a voice reply costs the agent host next to a text reply (DESIGN §9.5). A real
// agent host (built JavaScript) runs two assistants on one fake Telegram: "voice" answers with
// settings.voiceReplies "always" (speech through a gateway stand-in, an OGG/Opus upload with
// sendVoice), "text" with it off. Each answers VOICE_REPLIES messages one after another, the same
// answer, in two interleaved rounds. Printed per reply: the host's CPU time (utime + stime from /proc) and its RSS after the
// phase, text first, then voice, from the same run.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { request } from 'undici';
import { defaultSettings } from '@berth/contracts/settings';
import { FakeModelProvider, FakeTelegram, listen, close } from '@berth/testkit';
import { spawnMeasuredHost } from './spawn-host.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const TOKENS = {
  text: '8100000011:AAvoiceBenchTextBot_0123456789abcdef',
  voice: '8100000012:AAvoiceBenchVoiceBot_0123456789abcde',
};
const N = Number(process.env.VOICE_REPLIES ?? 100);
const ANSWER = 'Tomorrow will be sunny in Lisbon, with a light breeze from the north and 21 degrees in the afternoon.';
const MB = 1024 * 1024;

const tg = await new FakeTelegram().start();
for (const t of Object.values(TOKENS)) tg.addBot(t);
const provider = await new FakeModelProvider().start();
provider.fallback = () => ({ content: ANSWER });
// The gateway's part: it adds the catalog's model and voice, as /gateway/v1/audio/speech does.
const gateway = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  let body = Buffer.concat(chunks);
  if (req.url?.endsWith('/audio/speech'))
    body = Buffer.from(JSON.stringify({ ...JSON.parse(body.toString()), model: 'tts', voice: 'alloy' }));
  const up = await request(`${provider.url}${req.url?.replace(/^\/v1/, '')}`, {
    method: 'POST',
    headers: {
      authorization: String(req.headers.authorization ?? ''),
      'content-type': String(req.headers['content-type'] ?? 'application/json'),
    },
    body,
  });
  res.writeHead(up.statusCode, up.headers as Record<string, string>);
  res.end(Buffer.from(await up.body.arrayBuffer()));
});
const gatewayUrl = `${await listen(gateway)}/v1`;

const { child, url } = await spawnMeasuredHost('voice', ADMIN, tg.url);
const proc = (file: string) => readFileSync(`/proc/${child.pid}/${file}`, 'utf8');
/** CPU seconds the host used so far (user + system; the kernel counts in 1/100 s). */
const cpu = () => {
  const f = proc('stat')
    .slice(proc('stat').lastIndexOf(')') + 2)
    .split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(proc('status'))?.[1] ?? 0) * 1024;

const put = (name: string, token: string, voice: boolean) =>
  request(`${url}/agents/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      gatewayToken: `bench-gateway-${name}-0123456789abcdef`,
      model: {
        provider: 'fakeai',
        baseUrl: gatewayUrl,
        modelId: 'fake-model-1',
        apiKey: 'sk-test-model-key-0123456789abcdef',
        capabilities: ['speech'],
      },
      telegram: { botToken: token },
      settings: { ...defaultSettings(), voiceReplies: voice ? 'always' : 'off' },
    }),
  }).then((r) => r.body.json());

/** `n` replies one after another from bot `kind`; a voice reply is done when its voice note arrived. */
async function phase(kind: 'text' | 'voice', n: number, chat0: number) {
  const token = TOKENS[kind];
  const c0 = cpu();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const chat = chat0 + i;
    tg.userSends(token, chat, { text: 'weather tomorrow?' });
    if (kind === 'voice') await tg.waitForMedia((m) => m.chat_id === chat && m.method === 'sendVoice', 30_000);
    else await tg.waitForSent((m) => m.chat_id === chat, 30_000);
  }
  return { cpuMs: ((cpu() - c0) * 1000) / n, wallMs: (performance.now() - t0) / n, rss: rss() };
}

try {
  await put('text', TOKENS.text, false);
  await put('voice', TOKENS.voice, true);
  // Let both bots connect, and warm both paths (grammY's upload, undici, TypeBox).
  await phase('text', 3, 1);
  await phase('voice', 3, 101);
  const idle = rss();
  // Two rounds, interleaved, so that neither kind gets the warmer or the quieter machine.
  const t1 = await phase('text', N / 2, 1000);
  const v1 = await phase('voice', N / 2, 5000);
  const t2 = await phase('text', N / 2, 2000);
  const v2 = await phase('voice', N / 2, 6000);
  const mean = (a: typeof t1, b: typeof t1) => ({
    cpuMs: (a.cpuMs + b.cpuMs) / 2,
    wallMs: (a.wallMs + b.wallMs) / 2,
    rss: b.rss,
  });
  const text = mean(t1, t2);
  const voice = mean(v1, v2);
  const row = (name: string, r: typeof text) =>
    `${name.padEnd(12)} ${r.cpuMs.toFixed(2).padStart(8)} ms CPU  ${r.wallMs.toFixed(1).padStart(7)} ms wall  RSS ${(r.rss / MB).toFixed(1)} MB`;
  console.log(`bench:voice: ${N} replies each, one at a time; host RSS before ${(idle / MB).toFixed(1)} MB`);
  console.log(row('text reply', text));
  console.log(row('voice reply', voice));
  console.log(
    `a voice reply (text + speech call + OGG upload) takes ${(voice.cpuMs / text.cpuMs).toFixed(2)}x the CPU of a text reply`,
  );
} finally {
  child.kill('SIGTERM');
  await tg.stop();
  await provider.stop();
  await close(gateway);
}
