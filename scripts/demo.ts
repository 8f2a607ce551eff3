// `npm run demo`: Berth in a sandbox on loopback. A Telegram stand-in and a `demo` model provider
// (the testkit's fakes) take the place of the outside world, so there is no token, key or network
// to find: a first user with a printed password, one assistant already active, and a page in the
// dashboard (/demo) where the person writes to that assistant as a Telegram user. Needs the full
// install (the testkit and tsx are development packages); production installs never carry it.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { FakeTelegram } from '@berth/testkit';
import { defaultSettings } from '@berth/contracts/settings';
import { DEMO_MODEL_KEY, startDemoModel } from '../packages/testkit/src/demo/demo-model.js';
import { demoTelegramRoutes } from '../packages/testkit/src/demo/telegram-chat.js';
import { choosePort, createApiKey, createRuntime, loadConfig } from '../packages/server/src/index.js';
import { signUp } from '../packages/server/src/accounts/credentials.js';

const BOT_TOKEN = '7000000001:AAdemoSandboxBotTokenNotARealOne_0123';
const EMAIL = 'demo@example.com';
const step = (text: string) => process.stderr.write(`demo: ${text}\n`);

const SANDBOX_PREFIX = 'berth-demo-';
const OWNER_FILE = 'demo.pid';

/**
 * Sandboxes of demos that died without cleaning up (kill -9, a crash): each holds the pid of the
 * demo that made it; one whose process is gone is removed (issue 57). Only folders with that file.
 */
function removeStaleSandboxes() {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(SANDBOX_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let pid: number;
    try {
      pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue;
    }
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    rmSync(dir, { recursive: true, force: true });
    step(`removed ${dir}, left by a demo (pid ${pid}) that did not stop cleanly`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user has that pid now; not ours to judge, keep the folder.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

removeStaleSandboxes();
const tg = await new FakeTelegram().start();
tg.addBot(BOT_TOKEN, 'berth_demo_bot');
const model = await startDemoModel();
const ownDataDir = !process.env.DATA_DIR;
const dataDir = process.env.DATA_DIR || mkdtempSync(join(tmpdir(), SANDBOX_PREFIX));
// A DATA_DIR that does not exist yet is made, as `npm start` makes it.
mkdirSync(dataDir, { recursive: true });
if (ownDataDir) writeFileSync(join(dataDir, OWNER_FILE), String(process.pid));
const catalog = join(dataDir, 'demo-models.json');
// The sandbox prints a password and serves a bot anyone could write to: it stays on loopback
// whatever HOST says (issue 57: HOST=0.0.0.0 put it, password and all, on every interface).
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const host = process.env.HOST && LOOPBACK.has(process.env.HOST) ? process.env.HOST : '127.0.0.1';
if (process.env.HOST && host !== process.env.HOST)
  step(
    `HOST=${process.env.HOST} ignored: the demo listens on ${host} only (it prints a password); use npm start to serve a network`,
  );
writeFileSync(
  catalog,
  JSON.stringify({
    providers: [
      {
        id: 'demo',
        baseUrl: model.url,
        models: [{ id: 'demo-model', pricing: { prompt: 0, completion: 0 }, capabilities: [] }],
        // DESIGN §9.5: the demo model speaks (every answer is also a voice note) and draws.
        speech: { model: 'demo-voice', voice: 'alloy', pricePer1MChars: 0 },
        images: { model: 'demo-images', pricePerImage: 0 },
      },
    ],
  }),
);
step(`sandbox data in ${dataDir}${ownDataDir ? ' (removed when the demo stops)' : ''}`);

// PORT=0 (the tests): the port is chosen and held before the runtime is built, so that the links it
// makes (checkout, invitations) name it.
const chosen = await choosePort(
  loadConfig({
    ...process.env,
    HOST: host,
    DATA_DIR: dataDir,
    MODEL_CATALOG: catalog,
    TELEGRAM_API_ROOT: tg.url,
    MANAGED_PROVIDER: 'demo',
    MANAGED_PROVIDER_API_KEY: DEMO_MODEL_KEY,
    PAYMENT_PROVIDER: 'local',
    DATABASE_URL: '',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  }),
);
const config = chosen.config;
const runtime = await createRuntime(config, { extraRoutes: (app) => demoTelegramRoutes(app, tg, BOT_TOKEN) });
await chosen.release();
await runtime.app.listen({ port: config.port, host: config.host });
const port = (runtime.app.server.address() as AddressInfo).port;
const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  step('stopping');
  await runtime.close();
  await tg.stop();
  await model.stop();
  if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

step('creating the first user');
const password = randomBytes(9).toString('base64url');
await signUp(runtime.services, { email: EMAIL, password }, '127.0.0.1');
const { key } = await createApiKey(
  { users: runtime.services.users, secrets: runtime.secrets, now: () => new Date() },
  EMAIL,
);

const api = async (method: string, path: string, body?: unknown) => {
  const res = await request(`${url}${path}`, {
    method: method as 'GET',
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.body.json()) as { data?: Record<string, unknown>; error?: { message: string } };
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${json.error?.message ?? res.statusCode}`);
  return json.data!;
};

step('buying, paying for and activating one assistant');
const bought = await api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
const id = String(bought.deploymentId);
await request(`${url}${new URL(String(bought.checkoutUrl)).pathname}/complete`, { method: 'POST' }).then((r) =>
  r.body.dump(),
);
await api('POST', `/api/v1/assistants/${id}/activate`, {
  name: 'Demo assistant',
  modelProvider: 'demo',
  modelId: 'demo-model',
  messengerBotToken: BOT_TOKEN,
  modelApiKey: DEMO_MODEL_KEY,
});
for (let i = 0; ; i++) {
  const view = await api('GET', `/api/v1/assistants/${id}/status`);
  if (view.status === 'active') break;
  if (view.status === 'failed' || i > 600) throw new Error(`the demo assistant did not start: ${view.statusMessage}`);
  await new Promise((r) => setTimeout(r, 100));
}
// Every answer is also a voice note in the demo (DESIGN §9.5), so the first reply shows one.
await api('PUT', `/api/v1/assistants/${id}/settings`, { ...defaultSettings(), voiceReplies: 'always' });

process.stdout.write(
  [
    '',
    'Berth demo is running: a sandbox, with no real Telegram, model provider or network.',
    `  Dashboard   ${url}/   sign in as ${EMAIL} with password ${password}`,
    `  Telegram    ${url}/demo   write to @berth_demo_bot as a Telegram user would`,
    `  API         curl -s ${url}/api/v1/assistants/${id}/chat/completions \\`,
    `                -H "Authorization: Bearer ${key}" -H 'content-type: application/json' \\`,
    `                -d '{"model":"assistant-agent","messages":[{"role":"user","content":"what is 12*7?"}]}'`,
    '  Stop it with Ctrl-C.',
    '',
    `BERTH_DEMO ${JSON.stringify({ url, email: EMAIL, password, key, deploymentId: id })}`,
    '',
  ].join('\n'),
);
