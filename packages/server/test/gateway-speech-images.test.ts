// The model gateway speaks and draws (DESIGN §9.5): POST {gateway}/audio/speech answers OGG/Opus
// spoken with the catalog's model and voice, POST {gateway}/images/generations one picture; each is
// held and booked in the same ledger and allowance as chat at the catalog's price (per million
// characters, per image), byok included, and refused with no provider call where the catalog has
// no such capability or the allowance is spent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { FakeModelProvider } from '@berth/testkit';
import type { Harness } from './helpers/harness.js';
import { gatewayWorker, type GatewayWorker, OPERATOR_KEY, startGatewayHarness } from './helpers/gateway.js';
import { writeCatalog } from './helpers/catalog.js';
import { activeDeployment, type Mode } from './helpers/api.js';
import { parseCatalog } from '../src/catalog/model-catalog.js';
import { audioSeconds } from '../src/billing/gateway/audio.js';
import { imageNano, speechNano } from '../src/billing/gateway/media-out.js';

const PER_1M_CHARS = 15;
const PER_IMAGE = 0.04;
/** 0.1 USD: two pictures fit (0.08), a third does not. */
const ALLOWANCE_USD = 0.1;

let h: Harness;
let url: string;
let router: FakeModelProvider;
let plain: FakeModelProvider;

before(async () => {
  router = await new FakeModelProvider().start();
  router.apiKeys.add(OPERATOR_KEY);
  plain = await new FakeModelProvider().start();
  plain.apiKeys.add(OPERATOR_KEY);
  const pricing = { prompt: 1, completion: 2 };
  const speech = { model: 'gpt-4o-mini-tts', voice: 'alloy', pricePer1MChars: PER_1M_CHARS };
  const images = { model: 'gpt-image-1', pricePerImage: PER_IMAGE };
  ({ h, url } = await startGatewayHarness({
    MODEL_CATALOG: writeCatalog([
      // This byok provider has neither: both are refused before any call.
      { id: 'openai', baseUrl: plain.url, models: [{ id: 'gpt-4o-mini', pricing }] },
      // The managed router speaks and draws with the operator's key.
      { id: 'openrouter', baseUrl: router.url, speech, images, models: [{ id: 'openai/gpt-4o-mini', pricing }] },
      // A byok provider that speaks and draws through the owner's key.
      { id: 'voiced', baseUrl: router.url, speech, images, models: [{ id: 'voiced-1', pricing }] },
    ]),
    MANAGED_MONTHLY_CREDITS_USD: String(ALLOWANCE_USD),
  }));
});
after(async () => {
  await h?.close();
  await router?.stop();
  await plain?.stop();
});

async function worker(mode: Mode, extra: Record<string, unknown> = {}): Promise<GatewayWorker> {
  return gatewayWorker(h, await activeDeployment(h, await h.key(), mode, extra));
}

const post = async (w: GatewayWorker, path: string, body: unknown) => {
  const res = await request(`${url}/gateway/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.credential}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const type = String(res.headers['content-type'] ?? '');
  return {
    status: res.statusCode,
    type,
    bytes,
    json: type.includes('json') ? JSON.parse(bytes.toString()) : undefined,
  };
};

async function ledger(w: GatewayWorker) {
  await h.runtime.services.billing.settles.flush();
  return (await h.runtime.services.usage.period(w.key)) ?? { allowanceNano: null, reservedNano: 0, usedNano: 0 };
}

test('catalog: speech and images are read with their prices, and a malformed entry stops start-up', () => {
  const c = parseCatalog(
    {
      providers: [
        {
          id: 'p',
          baseUrl: 'https://p.example/v1',
          models: ['m'],
          speech: { model: 'tts-1', voice: 'nova', pricePer1MChars: 15 },
          images: { model: 'dall-e-3', pricePerImage: 0.04 },
        },
      ],
    },
    'test',
  );
  assert.deepEqual(c.provider('p')!.speech, { model: 'tts-1', voice: 'nova', pricePer1MChars: 15 });
  assert.deepEqual(c.provider('p')!.images, { model: 'dall-e-3', pricePerImage: 0.04 });
  const bad = (extra: object) => () =>
    parseCatalog({ providers: [{ id: 'p', baseUrl: 'https://p.example', models: ['m'], ...extra }] }, 'test');
  assert.throws(
    bad({ speech: { model: 'tts-1', pricePer1MChars: 15 } }),
    /speech must be \{"model","voice","pricePer1MChars"\}/,
  );
  assert.throws(bad({ speech: { model: 'tts-1', voice: 'x', pricePer1MChars: -1 } }), /speech must be/);
  assert.throws(bad({ images: { model: 'dall-e-3' } }), /images must be \{"model","pricePerImage"\}/);
});

test('speech: OGG/Opus in the catalog voice, booked per character; the input the worker sent, nothing else', async () => {
  const w = await worker('managed');
  const input = 'Your parcel arrives on Tuesday between nine and noon. 🚚';
  const res = await post(w, '/audio/speech', { input, model: 'whatever', voice: 'echo', response_format: 'opus' });
  assert.equal(res.status, 200, res.bytes.toString());
  assert.equal(res.type, 'audio/ogg');
  assert.ok((await audioSeconds(res.bytes, 'audio/ogg'))! >= 1, 'a real Ogg/Opus file with a length');
  const seen = router.speeches.at(-1)!;
  assert.deepEqual(seen.body, { model: 'gpt-4o-mini-tts', voice: 'alloy', input, response_format: 'opus' });
  assert.equal(seen.headers.authorization, `Bearer ${OPERATOR_KEY}`);
  const l = await ledger(w);
  assert.equal(l.usedNano, speechNano(PER_1M_CHARS, [...input].length));
  assert.equal(l.reservedNano, 0);
});

test('images: one PNG at the catalog price, until the allowance is spent; then 429 and no provider call', async () => {
  const w = await worker('managed');
  const before = router.imageRequests.length;
  for (let i = 0; i < 2; i++) {
    const res = await post(w, '/images/generations', { prompt: 'a lighthouse at dusk', size: '1024x1536' });
    assert.equal(res.status, 200, res.bytes.toString());
    const png = Buffer.from(res.json.data[0].b64_json, 'base64');
    assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  }
  assert.deepEqual(router.imageRequests.at(-1)!.body, {
    model: 'gpt-image-1',
    prompt: 'a lighthouse at dusk',
    n: 1,
    size: '1024x1536',
  });
  const refused = await post(w, '/images/generations', { prompt: 'one more' });
  assert.equal(refused.status, 429, refused.bytes.toString());
  assert.equal(refused.json.error.code, 'CREDITS_EXHAUSTED');
  const speech = await post(w, '/audio/speech', { input: 'x'.repeat(4000) });
  assert.equal(speech.status, 429, 'speech shares the allowance');
  assert.equal(router.imageRequests.length - before, 2, 'the refused call never reached the provider');
  const l = await ledger(w);
  assert.equal(l.usedNano, 2 * imageNano(PER_IMAGE));
  assert.equal(l.reservedNano, 0);
});

test('a provider without speech or images: 400 naming why, and no provider call', async () => {
  const w = await worker('byok');
  const calls = plain.speeches.length + plain.imageRequests.length;
  const s = await post(w, '/audio/speech', { input: 'hello' });
  assert.equal(s.status, 400);
  assert.match(s.json.error.message, /offers no speech in the catalog/);
  const i = await post(w, '/images/generations', { prompt: 'a cat' });
  assert.equal(i.status, 400);
  assert.match(i.json.error.message, /offers no image generation in the catalog/);
  assert.equal(plain.speeches.length + plain.imageRequests.length, calls);
  assert.equal((await ledger(w)).usedNano, 0);
});

test("byok: the owner's key reaches the provider and the call is booked too", async () => {
  const w = await worker('byok', { modelProvider: 'voiced', modelId: 'voiced-1' });
  const res = await post(w, '/images/generations', { prompt: 'a red bicycle' });
  assert.equal(res.status, 200, res.bytes.toString());
  assert.equal(router.imageRequests.at(-1)!.headers.authorization, 'Bearer sk-test-model-key-0123456789abcdef');
  await h.runtime.services.billing.settles.flush();
  const days = await h.runtime.services.usage.daily(w.key);
  assert.deepEqual(
    days.map((d) => [d.replies, d.costNano]),
    [[1, imageNano(PER_IMAGE)]],
  );
});

test("the provider's error is relayed in its own shape, and its hold released", async () => {
  const w = await worker('managed');
  router.mediaFailures.push({
    status: 400,
    error: { message: 'Your request was rejected by the safety system.', code: 'content_policy_violation' },
  });
  const res = await post(w, '/images/generations', { prompt: 'something refused' });
  assert.equal(res.status, 400);
  assert.equal(res.json.error.code, 'content_policy_violation');
  const l = await ledger(w);
  assert.equal(l.usedNano, 0);
  assert.equal(l.reservedNano, 0);
});

test('bad bodies: a clear 400, never a provider call', async () => {
  const w = await worker('managed');
  const calls = router.speeches.length + router.imageRequests.length;
  for (const [path, body] of [
    ['/audio/speech', { input: '' }],
    ['/audio/speech', { input: 'x'.repeat(4097) }],
    ['/audio/speech', { input: 'hi', response_format: 'mp3' }],
    ['/images/generations', { prompt: 'a cat', size: '4096x4096' }],
    ['/images/generations', { prompt: 'cats', n: 4 }],
  ] as const) {
    const res = await post(w, path, body);
    assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${res.bytes}`);
    assert.equal(res.json.error.code, 'INVALID_REQUEST');
  }
  assert.equal(router.speeches.length + router.imageRequests.length, calls);
});

test('a provider answering something else than OGG audio or a picture: 502, nothing booked', async () => {
  const w = await worker('managed');
  router.mediaFailures.push({ ok: { type: 'audio/mpeg', body: 'ID3 not an ogg file' } });
  const s = await post(w, '/audio/speech', { input: 'hello there' });
  assert.equal(s.status, 502, s.bytes.toString());
  assert.match(s.json.error.message, /without OGG\/Opus audio/);
  router.mediaFailures.push({ ok: { type: 'application/json', body: JSON.stringify({ created: 1, data: [] }) } });
  const i = await post(w, '/images/generations', { prompt: 'a cat' });
  assert.equal(i.status, 502, i.bytes.toString());
  assert.match(i.json.error.message, /without a picture/);
  const l = await ledger(w);
  assert.equal(l.usedNano, 0);
  assert.equal(l.reservedNano, 0);
});
