// Faults over loopback: the agent host dying mid-stream, a worker already gone, and the control
// plane killed with SIGKILL during a deploy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { startE2E, catalogFor, MODEL_KEY } from './helpers/e2e.js';
import { createTestDatabase, databaseEnv, TEST_SECRETS_KEY } from './helpers/database.js';
import { createApiKey, createSecretBox, openStore, resolveSecretsKey, UserRepo } from '../src/index.js';
import type { LocalAgentHost } from '../src/workers/local-agent-host.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the agent host killed mid-stream: a clean error, the host comes back, the assistant is active again', async () => {
  const e = await startE2E();
  try {
    const bot = '7400000001:AAfaultHostKilledMidStreamToken_abcdefg';
    e.tg.addBot(bot);
    const id = await e.activate(bot);
    assert.equal((await e.waitForStatus(id, ['active', 'failed'])).status, 'active');
    const host = e.runtime.services.workers as LocalAgentHost;
    const firstPid = host.pid!;
    const client = new OpenAI({ apiKey: e.key, baseURL: `${e.url}/api/v1/assistants/${id}`, maxRetries: 0 });
    e.provider.queue.push({ content: 'word '.repeat(400), chunkDelayMs: 10 });
    const stream = await client.chat.completions.create({
      model: 'assistant-agent',
      messages: [{ role: 'user', content: 'long answer please' }],
      stream: true,
    });
    let received = '';
    const err = await (async () => {
      try {
        for await (const chunk of stream) {
          received += chunk.choices[0]?.delta?.content ?? '';
          if (received.length > 20 && alive(firstPid)) process.kill(firstPid, 'SIGKILL');
        }
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    assert.ok(err, 'the client saw an error instead of a silently short answer');
    assert.match(err.message, /broke off the stream|BAD_GATEWAY|terminated|closed/i);
    assert.ok(received.length > 0 && received.length < 2000);

    // The supervisor restarts the host and the reconciler brings the assistant back.
    const end = Date.now() + 20_000;
    let answer: string | null | undefined;
    while (Date.now() < end) {
      try {
        const res = await client.chat.completions.create({
          model: 'assistant-agent',
          messages: [{ role: 'user', content: 'are you back?' }],
        });
        answer = res.choices[0]!.message.content;
        break;
      } catch {
        await sleep(200);
      }
    }
    assert.equal(answer, 'You said: are you back?');
    assert.notEqual(host.pid, firstPid);
    assert.equal((await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');
    e.tg.userSends(bot, 7401, { text: 'telegram after restart' });
    assert.equal((await e.tg.waitForSent((m) => m.chat_id === 7401)).text, 'You said: telegram after restart');
  } finally {
    await e.close();
  }
});

test('stopping a deployment whose worker is already gone (upstream 404) succeeds', async () => {
  const e = await startE2E();
  try {
    const bot = '7400000002:AAfaultWorkerAlreadyGoneToken_abcdefghij';
    e.tg.addBot(bot);
    const id = await e.activate(bot);
    const view = await e.waitForStatus(id, ['active', 'failed']);
    const name = view.workerUrl.split('/agents/')[1];
    assert.equal(await e.runtime.services.workers.deleteWorker(name), 'deleted');
    const res = await e.api('POST', `/api/v1/assistants/${id}/stop`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.status, 'stopped');
  } finally {
    await e.close();
  }
});

function startControlPlane(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'packages/server/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('control plane did not start')), 60_000);
    child.once('exit', (code) => fail(new Error(`control plane exited with ${code}`)));
    child.stderr!.on('data', (d) => process.stderr.write(d));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.includes('"msg":"berth control plane ready"')) return;
      clearTimeout(timer);
      ok({ child, url: JSON.parse(line).address });
    });
  });
}

test('kill -9 of the control plane during a deploy converges after restart, with no orphan worker', async () => {
  const tg = await new FakeTelegram().start();
  const provider = await new FakeModelProvider().start();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-crash-'));
  const db = await createTestDatabase();
  const secretsKey = TEST_SECRETS_KEY;
  const env = {
    PORT: '0',
    DATA_DIR: dataDir,
    SECRETS_KEY: secretsKey,
    MODEL_CATALOG: catalogFor(provider.url),
    TELEGRAM_API_ROOT: tg.url,
    DEPLOY_TIMEOUT_SECONDS: '120',
    JOB_LEASE_SECONDS: '2',
    LOG_LEVEL: 'info',
    ...databaseEnv(db),
  };
  const store = await openStore({ databaseUrl: db.url, dataDir });
  const { key } = await createApiKey(
    {
      users: new UserRepo(store.db),
      secrets: createSecretBox(resolveSecretsKey(Buffer.from(secretsKey, 'base64'), dataDir)),
      now: () => new Date(),
    },
    'crash@example.com',
  );
  await store.close();
  const bot = '7400000003:AAfaultControlPlaneKilledDuringDeploy_q';
  tg.addBot(bot);
  tg.broken.add('getMe'); // the deploy cannot finish while Telegram is down
  let cp = await startControlPlane(env);
  try {
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await request(`${cp.url}${path}`, {
        method: method as 'GET',
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return r.body.json() as Promise<any>;
    };
    const bought = await call('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
    assert.ok(bought.data, JSON.stringify(bought));
    const { data } = bought;
    await request(`${cp.url}${new URL(data.checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) =>
      r.body.dump(),
    );
    const act = await call('POST', `/api/v1/assistants/${data.deploymentId}/activate`, {
      name: 'Crash',
      modelProvider: 'fakeai',
      modelId: 'fake-model-1',
      messengerBotToken: bot,
      modelApiKey: MODEL_KEY,
    });
    assert.equal(act.data.status, 'deploying');
    await sleep(1500);
    const hostPids = execFileSync('pgrep', ['-P', String(cp.child.pid), '-f', 'berth-agent.js host'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .map(Number);
    assert.equal(hostPids.length, 1, 'one agent host child');
    cp.child.kill('SIGKILL');
    const end = Date.now() + 10_000;
    while (alive(hostPids[0]!) && Date.now() < end) await sleep(100);
    assert.equal(alive(hostPids[0]!), false, 'the agent host went with its control plane');

    tg.broken.delete('getMe');
    cp = await startControlPlane(env);
    const deadline = Date.now() + 30_000;
    let status = '';
    while (Date.now() < deadline) {
      status = (await call('GET', `/api/v1/assistants/${data.deploymentId}/status`)).data.status;
      if (status === 'active' || status === 'failed') break;
      await sleep(200);
    }
    assert.equal(status, 'active');
    tg.userSends(bot, 7403, { text: 'after the crash' });
    assert.equal((await tg.waitForSent((m) => m.chat_id === 7403, 15_000)).text, 'You said: after the crash');
    assert.equal(tg.sent.filter((m) => m.chat_id === 7403).length, 1, 'answered once: no second poller');
  } finally {
    cp.child.kill('SIGTERM');
    await new Promise((r) => cp.child.once('exit', r));
    await tg.stop();
    await provider.stop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
