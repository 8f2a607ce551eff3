// The worker spec builder: what each mode gives the worker, and a clear reason when it cannot run.
import { defaultSettings } from '@berth/contracts/settings';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { parseCatalog } from '../src/catalog/model-catalog.js';
import { createSecretBox } from '../src/platform/crypto/secret-box.js';
import type { Deployment } from '../src/domain/deployment.js';
import { buildWorkerSpec, WorkerSpecError, type SpecDeps } from '../src/workers/spec.js';

const secrets = createSecretBox(randomBytes(32));
const catalog = parseCatalog(
  { providers: [{ id: 'openai', name: 'OpenAI', baseUrl: 'https://models.example/v1/', models: ['gpt-4o-mini'] }] },
  'test',
);
const billing = {
  credentials: { issue: (id: string) => `bgw_${id}_mac` },
  gatewayUrl: () => 'http://berth.test/gateway/v1',
};
const deps: SpecDeps = { catalog, secrets, managedProviderApiKey: 'sk-managed-operator-key-0123456789', billing };
const BOT = '7123456789:AAFakeTokenForTests_abcdefghijklmnopqrs';

function deployment(over: Partial<Deployment> = {}): Deployment {
  return {
    id: '01JD2Z6W8N3Q4R5S6T7V8W9X0Y',
    userId: 'u1',
    organizationId: null,
    name: 'Helper',
    modelProvider: 'openai',
    modelId: 'gpt-4o-mini',
    channelType: 'telegram',
    apiMode: 'byok',
    framework: 'assistant-agent',
    workerName: 'asst-01jd2z6w8n3q4r5s6t7v8w9x0y',
    workerUrl: null,
    status: 'deploying',
    statusMessage: null,
    desired: 'running',
    observed: 'absent',
    paymentStatus: 'paid',
    paymentSubscriptionId: 'sub_1',
    currentPeriodEnd: '2026-12-22T00:00:00.000Z',
    canceledAt: null,
    isPrebuy: false,
    userCallbackUrl: null,
    botTokenEnc: secrets.seal(BOT),
    botTokenHash: null,
    modelApiKeyEnc: secrets.seal('sk-user-own-key-abcdef0123456789'),
    gatewayTokenEnc: secrets.seal('gw-token-0123456789abcdef'),
    checkoutId: 'cs_1',
    generation: 3,
    paymentEventAt: null,
    suspendedReason: null,
    createdAt: '2026-11-22T00:00:00.000Z',
    updatedAt: '2026-11-22T00:00:00.000Z',
    ...over,
  };
}

test("byok: the metering gateway and a per-deployment credential, never the owner's key (one meter)", () => {
  const spec = buildWorkerSpec(deps, deployment(), defaultSettings());
  assert.deepEqual(spec, {
    workerName: 'asst-01jd2z6w8n3q4r5s6t7v8w9x0y',
    deploymentId: '01JD2Z6W8N3Q4R5S6T7V8W9X0Y',
    framework: 'assistant-agent',
    channels: [{ type: 'telegram', botToken: BOT }],
    gatewayToken: 'gw-token-0123456789abcdef',
    model: {
      provider: 'openai',
      baseUrl: 'http://berth.test/gateway/v1',
      modelId: 'gpt-4o-mini',
      apiKey: 'bgw_01JD2Z6W8N3Q4R5S6T7V8W9X0Y_mac',
    },
    settings: defaultSettings(),
  });
  assert.ok(!JSON.stringify(spec).includes('sk-user-own-key'));
});

test('managed and unlimited: the metering gateway with a per-deployment credential, never a router or user key', () => {
  for (const apiMode of ['managed', 'unlimited'] as const) {
    const spec = buildWorkerSpec(deps, deployment({ apiMode }), defaultSettings());
    assert.deepEqual(spec.model, {
      provider: 'openai',
      baseUrl: 'http://berth.test/gateway/v1',
      modelId: 'gpt-4o-mini',
      apiKey: 'bgw_01JD2Z6W8N3Q4R5S6T7V8W9X0Y_mac',
    });
    assert.ok(
      !JSON.stringify(spec).includes('sk-managed-operator-key') && !JSON.stringify(spec).includes('sk-user-own-key'),
    );
  }
});

test('what cannot run says why, as a WorkerSpecError a person can act on', () => {
  const cases: Array<[Partial<Deployment>, SpecDeps, RegExp]> = [
    [{ modelProvider: 'gone' }, deps, /no longer in the server's model catalog/],
    [{ botTokenEnc: null }, deps, /no bot token/],
    [{ modelApiKeyEnc: null }, deps, /no model API key/],
    [{ apiMode: 'managed' }, { ...deps, managedProviderApiKey: undefined }, /MANAGED_PROVIDER_API_KEY/],
  ];
  for (const [over, d, message] of cases) {
    assert.throws(
      () => buildWorkerSpec(d, deployment(over), defaultSettings()),
      (err: unknown) => err instanceof WorkerSpecError && message.test((err as Error).message),
    );
  }
});

test('media (DESIGN §7.3): a vision model and its provider transcription model reach the worker; others carry nothing', () => {
  const media = parseCatalog(
    {
      providers: [
        {
          id: 'openai',
          baseUrl: 'https://models.example/v1',
          transcription: { model: 'whisper-1', pricePerMinute: 0.006 },
          models: [{ id: 'gpt-4o-mini', capabilities: ['vision'] }, 'text-only'],
        },
      ],
    },
    'test',
  );
  const d = { ...deps, catalog: media };
  for (const apiMode of ['byok', 'managed'] as const) {
    const spec = buildWorkerSpec(d, deployment({ apiMode }), defaultSettings());
    assert.deepEqual(spec.model.capabilities, ['vision']);
    assert.equal(spec.model.transcriptionModel, 'whisper-1');
    const plain = buildWorkerSpec(d, deployment({ apiMode, modelId: 'text-only' }), defaultSettings());
    assert.equal(plain.model.capabilities, undefined);
  }
  assert.equal(buildWorkerSpec(deps, deployment(), defaultSettings()).model.transcriptionModel, undefined);
});

test('catalog: a misspelt capability or a transcription without a price stops start-up with the place named', () => {
  const one = (p: Record<string, unknown>) => () =>
    parseCatalog({ providers: [{ id: 'x', baseUrl: 'https://m.example/v1', models: ['m'], ...p }] }, 'cat');
  assert.throws(one({ models: [{ id: 'm', capabilities: ['visoin'] }] }), /providers\[0\]\.models\[0\]\.capabilities/);
  assert.throws(one({ transcription: { model: 'w' } }), /providers\[0\]\.transcription must be/);
});

test('the shipped catalog marks vision and transcription models', async () => {
  const { loadCatalog } = await import('../src/catalog/model-catalog.js');
  const { DEFAULT_MODEL_CATALOG } = await import('../src/platform/config/env.js');
  const shipped = loadCatalog(DEFAULT_MODEL_CATALOG);
  assert.deepEqual(shipped.provider('openai')?.capabilities.get('gpt-4o'), ['vision']);
  assert.equal(shipped.provider('openai')?.transcription?.model, 'whisper-1');
  assert.equal(shipped.provider('deepseek')?.capabilities.get('deepseek-chat'), undefined);
});

test("the spec is @berth/contracts/worker's document, and an agent host's mount is its checked part", async () => {
  const { Compile } = await import('typebox/compile');
  const { WorkerSpec, AssistantMount } = await import('@berth/contracts/worker');
  const { agentHostMount } = await import('../src/workers/agent-host-mount.js');
  const spec = buildWorkerSpec(deps, deployment(), defaultSettings());
  assert.ok(Compile(WorkerSpec).Check(spec), 'the document the backends get');
  const mount = agentHostMount(spec, 'http://127.0.0.1:8081');
  assert.ok(Compile(AssistantMount).Check(mount), 'what crosses to the agent host');
  assert.deepEqual(mount.channels, [{ type: 'telegram', botToken: BOT, apiRoot: 'http://127.0.0.1:8081' }]);
  assert.equal('workerName' in mount, false, 'the backend keeps its names');
});
