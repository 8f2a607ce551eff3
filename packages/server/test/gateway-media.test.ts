// The model gateway and media (DESIGN §7.3): a managed worker may send a vision model images as
// data URLs and nothing else (no https image, no file or input_audio part, nothing to a model
// without vision); voice notes are transcribed through POST {gateway}/audio/transcriptions, their
// minutes held and booked in the same ledger as chat, and never past the allowance, even at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { multipartBody } from '@berth/contracts/net';
import { FakeModelProvider, makeOggOpus, makePng } from '@berth/testkit';
import type { Harness } from './helpers/harness.js';
import { gatewayWorker, type GatewayWorker, OPERATOR_KEY, startGatewayHarness } from './helpers/gateway.js';
import { writeCatalog } from './helpers/catalog.js';
import { activeDeployment, pay, purchase } from './helpers/api.js';
import { transcriptionNano } from '../src/billing/gateway/audio.js';

const PRICE_PER_MINUTE = 0.006;
/** 0.02 USD: three minutes of audio fit, a fourth does not. */
const ALLOWANCE_USD = 0.02;

let h: Harness;
let url: string;
let router: FakeModelProvider;

async function worker(modelId = 'openai/gpt-4o-mini', bot?: string): Promise<GatewayWorker> {
  const apiKey = await h.key();
  let id: string;
  if (!bot) id = await activeDeployment(h, apiKey, 'managed');
  else {
    const p = await purchase(h, apiKey, 'managed');
    await pay(h, p.checkoutUrl);
    const res = await h.inject({
      method: 'POST',
      url: `/api/v1/assistants/${p.deploymentId}/activate`,
      headers: { 'x-api-key': apiKey },
      payload: { name: 'Plain', modelId, messengerBotToken: bot },
    });
    assert.equal(res.statusCode, 200, res.body);
    await h.runtime.idle();
    id = p.deploymentId;
  }
  return gatewayWorker(h, id);
}

before(async () => {
  router = await new FakeModelProvider().start();
  router.apiKeys.add(OPERATOR_KEY);
  const pricing = { prompt: 1, completion: 2 };
  const catalog = writeCatalog([
    { id: 'openai', baseUrl: router.url, models: [{ id: 'gpt-4o-mini', pricing }] },
    {
      id: 'openrouter',
      baseUrl: router.url,
      transcription: { model: 'whisper-1', pricePerMinute: PRICE_PER_MINUTE },
      models: [
        { id: 'openai/gpt-4o-mini', pricing, capabilities: ['vision'] },
        { id: 'meta-llama/llama-3.3-70b-instruct', pricing },
      ],
    },
  ]);
  ({ h, url } = await startGatewayHarness({
    MODEL_CATALOG: catalog,
    MANAGED_MONTHLY_CREDITS_USD: String(ALLOWANCE_USD),
  }));
});
after(async () => {
  await h?.close();
  await router?.stop();
});

const chat = (w: GatewayWorker, content: unknown) =>
  request(`${url}/gateway/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.credential}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content }], max_tokens: 10 }),
  });

async function transcribe(w: GatewayWorker, audio: Buffer, type = 'audio/ogg') {
  const form = await multipartBody({ file: { bytes: audio, type, name: 'voice.oga' }, model: 'whisper-1' });
  const res = await request(`${url}/gateway/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.credential}`, 'content-type': form.contentType },
    body: form.body,
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

async function ledger(w: GatewayWorker) {
  await h.runtime.services.billing.settles.flush();
  return (await h.runtime.services.usage.period(w.key)) ?? { allowanceNano: null, reservedNano: 0, usedNano: 0 };
}

const png = `data:image/png;base64,${makePng(4, 4).toString('base64')}`;

test('a vision model gets the image as a data URL part beside the text', async () => {
  const w = await worker();
  const before = router.imageParts.length;
  const res = await chat(w, [
    { type: 'text', text: 'What colour is this?' },
    { type: 'image_url', image_url: { url: png } },
  ]);
  assert.equal(res.statusCode, 200, await res.body.text());
  const sent = router.imageParts.slice(before);
  assert.deepEqual(
    sent.map((p) => p.url),
    [png],
  );
});

test('parts the deployment may not send are refused by name, and the router is not called', async () => {
  const w = await worker();
  const calls = router.requests.length;
  const cases: Array<[unknown, RegExp]> = [
    [[{ type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=' } }], /"file" are not accepted/],
    [[{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }], /"input_audio" are not accepted/],
    [[{ type: 'image_url', image_url: { url: 'https://images.example/cat.png' } }], /only data: image URLs/],
    [
      [
        {
          type: 'image_url',
          image_url: { url: `data:image/png;base64,${Buffer.from('not a picture').toString('base64')}` },
        },
      ],
      /holds no PNG, JPEG, GIF or WebP/,
    ],
    [
      [{ type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(7 * 1024 * 1024)}` } }],
      /at most 5 MB/,
    ],
  ];
  for (const [content, why] of cases) {
    const res = await chat(w, content);
    const body = (await res.body.json()) as any;
    assert.equal(res.statusCode, 400, JSON.stringify(body));
    assert.equal(body.error.code, 'INVALID_REQUEST');
    assert.match(body.error.message, why);
  }
  assert.equal(router.requests.length, calls, 'nothing reached the router');
});

test('a model without vision: an image is refused, naming why', async () => {
  const w = await worker('meta-llama/llama-3.3-70b-instruct', '7123456780:AAOtherTokenForMediaTests_abcdefghijk');
  const res = await chat(w, [{ type: 'image_url', image_url: { url: png } }]);
  const body = (await res.body.json()) as any;
  assert.equal(res.statusCode, 400);
  assert.match(body.error.message, /does not read images/);
});

test('transcription: the minutes land in the ledger at the catalog price, and stop at the allowance', async () => {
  const w = await worker();
  const minute = makeOggOpus(60);
  const before = router.transcriptions.length;
  const first = await transcribe(w, minute);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.text, `transcript of ${minute.length} bytes`);
  const seen = router.transcriptions.at(-1)!;
  assert.equal(seen.model, 'whisper-1', 'the catalog transcription model, whatever the worker asked');
  assert.equal(seen.headers.authorization, `Bearer ${OPERATOR_KEY}`);
  assert.deepEqual(seen.bytes, minute);
  const one = transcriptionNano(PRICE_PER_MINUTE, 60);
  let l = await ledger(w);
  assert.equal(l.usedNano, one);
  assert.equal(l.reservedNano, 0);
  assert.equal((await transcribe(w, minute)).status, 200);
  assert.equal((await transcribe(w, minute)).status, 200);
  const refused = await transcribe(w, minute);
  assert.equal(refused.status, 429, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'CREDITS_EXHAUSTED');
  l = await ledger(w);
  assert.equal(l.usedNano, 3 * one);
  assert.ok(l.usedNano <= l.allowanceNano!);
  assert.equal(router.transcriptions.length - before, 3, 'the refused call never reached the router');
});

test('transcription: eight at once cannot overshoot the allowance', async () => {
  const w = await worker();
  const minute = makeOggOpus(60);
  const results = await Promise.all(Array.from({ length: 8 }, () => transcribe(w, minute)));
  const ok = results.filter((r) => r.status === 200).length;
  assert.equal(ok, 3, JSON.stringify(results.map((r) => r.status)));
  assert.ok(results.every((r) => r.status === 200 || r.body.error.code === 'CREDITS_EXHAUSTED'));
  const l = await ledger(w);
  assert.equal(l.usedNano, 3 * transcriptionNano(PRICE_PER_MINUTE, 60));
  assert.equal(l.reservedNano, 0);
});

test('transcription: bytes that are not audio, or audio over the cap, are refused before any cost', async () => {
  const w = await worker();
  const before = router.transcriptions.length;
  const junk = await transcribe(w, Buffer.from('%PDF-1.4 not audio at all'), 'audio/ogg');
  assert.equal(junk.status, 400);
  assert.match(junk.body.error.message, /not audio whose length can be read/);
  const long = await transcribe(w, makeOggOpus(21 * 60));
  assert.equal(long.status, 400);
  assert.match(long.body.error.message, /at most 20 minutes/);
  assert.equal(router.transcriptions.length, before);
  assert.equal((await ledger(w)).usedNano, 0);
});

test("the agent's transcriber speaks the gateway's route: a managed worker's voice note is metered like chat", async () => {
  const { OpenAiCompatibleTranscriber } = await import('@berth/agent');
  const w = await worker();
  const spec = [...h.workers.workers.values()].find((s) => s.deploymentId === w.id)!;
  // What the worker is given: the gateway as base URL, its credential, the catalog's transcription model.
  assert.equal(spec.model.transcriptionModel, 'whisper-1');
  const transcriber = new OpenAiCompatibleTranscriber({
    provider: spec.model.provider,
    baseUrl: `${url}/gateway/v1`,
    apiKey: spec.model.apiKey!,
    model: spec.model.transcriptionModel!,
  });
  const audio = makeOggOpus(30);
  router.transcribe = () => 'call me back at five';
  const text = await transcriber.transcribe(
    { bytes: audio, fileName: 'voice.ogg', mimeType: 'audio/ogg' },
    AbortSignal.timeout(30_000),
  );
  assert.equal(text, 'call me back at five');
  assert.equal((await ledger(w)).usedNano, transcriptionNano(PRICE_PER_MINUTE, 30));
});
