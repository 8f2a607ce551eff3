// bench:settings — how long a settings change takes to reach the model: PUT …/settings on an
// active assistant, then a chat; timed from the PUT until the model provider receives the first
// request whose system message is the new persona. Beside it, from the same run, a plain chat's
// time from sending it to the provider's receipt (no change before it). Local backend: the real
// agent host process, loopback Telegram and model-provider fakes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { defaultSettings } from '@berth/contracts/settings';
import { ms, percentile as pct, report } from './load.js';
import { table } from './processes.js';
import { listeningControlPlane } from './slots.js';

const RUNS = Number(process.env.SETTINGS_RUNS ?? 100);
const BOT = '7100009999:AAsettingsBenchToken_0000000000000000';

const tg = await new FakeTelegram().start();
const provider = await new FakeModelProvider().start();
const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-settings-'));
const catalog = join(dataDir, 'models.json');
writeFileSync(
  catalog,
  JSON.stringify({
    providers: [
      { id: 'fakeai', baseUrl: provider.url, models: ['fake-model-1'] },
      {
        id: 'openrouter',
        baseUrl: provider.url,
        models: [{ id: 'router/fake', pricing: { prompt: 1, completion: 2 } }],
      },
    ],
  }),
);
tg.addBot(BOT);
// When the provider received each request, and with which persona.
const seen: Array<{ at: number; persona: string }> = [];
provider.fallback = (body) => {
  seen.push({ at: performance.now(), persona: body.messages?.[0]?.content ?? '' });
  return { content: 'ok' };
};
const { rt, url, call } = await listeningControlPlane(
  { DATA_DIR: dataDir, TELEGRAM_API_ROOT: tg.url, MODEL_CATALOG: catalog },
  'bench-settings@example.com',
);

try {
  const bought = await call('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  const { deploymentId: id, checkoutUrl } = bought.json.data;
  await request(`${url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
  const act = await call('POST', `/api/v1/assistants/${id}/activate`, {
    name: 'bench',
    modelProvider: 'fakeai',
    modelId: 'fake-model-1',
    modelApiKey: 'sk-test-model-key-0123456789abcdef',
    messengerBotToken: BOT,
  });
  if (act.status !== 200) throw new Error(`activate answered ${act.status}`);
  for (let t0 = Date.now(); (await call('GET', `/api/v1/assistants/${id}/status`)).json.data.status !== 'active'; ) {
    if (Date.now() - t0 > 30_000) throw new Error('not active within 30 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  const chat = () =>
    call('POST', `/api/v1/assistants/${id}/chat/completions`, {
      model: 'assistant-agent',
      messages: [{ role: 'user', content: 'hi' }],
    });
  await chat(); // warm the path
  const changes: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const persona = `You are persona number ${i}.`;
    const t0 = performance.now();
    const put = await call('PUT', `/api/v1/assistants/${id}/settings`, { ...defaultSettings(), systemPrompt: persona });
    if (put.status !== 200) throw new Error(`PUT answered ${put.status}`);
    await chat();
    const hit = seen.find((s) => s.persona === persona);
    if (!hit) throw new Error(`the model never saw persona ${i}`);
    changes.push(hit.at - t0);
    // The baseline, interleaved so both see the same machine: a chat with no change before it.
    const from = seen.length;
    const t1 = performance.now();
    await chat();
    plain.push(seen[from]!.at - t1);
  }
  console.log(`\nbench:settings (local backend, real agent host; ${RUNS} changes, each followed by a chat)\n`);
  table(
    ['', 'p50 ms', 'p99 ms', 'max ms'],
    [
      [
        'settings PUT → first model call with them',
        ms(pct(changes, 50)),
        ms(pct(changes, 99)),
        ms(Math.max(...changes)),
      ],
      ['baseline: plain chat → model call', ms(pct(plain, 50)), ms(pct(plain, 99)), ms(Math.max(...plain))],
    ],
  );
  report('settings', {
    runs: RUNS,
    changeP50: pct(changes, 50),
    changeP99: pct(changes, 99),
    plainP50: pct(plain, 50),
    plainP99: pct(plain, 99),
    withinFiveSeconds: Math.max(...changes) < 5000,
  });
} finally {
  await rt.close();
  await tg.stop();
  await provider.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
