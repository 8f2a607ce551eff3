// Faults over loopback: the agent host dying mid-stream, a worker already gone, and the control
// plane killed with SIGKILL during a deploy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import OpenAI from 'openai';
import { startE2E, activeBot } from './helpers/e2e.js';
import { callAs, settledStatus, startProcessRig, stopControlPlane } from './helpers/control-plane-process.js';
import type { LocalAgentHost } from '../src/workers/local-agent-host.js';
import { until } from './helpers/until.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the agent host killed mid-stream: a clean error, the host comes back, the assistant is active again', async () => {
  const e = await startE2E();
  try {
    const bot = '7400000001:AAfaultHostKilledMidStreamToken_abcdefg';
    const id = await activeBot(e, bot);
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
    const answer = await until(
      'the assistant to answer again',
      async () => {
        try {
          const res = await client.chat.completions.create({
            model: 'assistant-agent',
            messages: [{ role: 'user', content: 'are you back?' }],
          });
          return res.choices[0]!.message.content ?? undefined;
        } catch {
          return undefined;
        }
      },
      20_000,
      200,
    );
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

test('kill -9 of the control plane during a deploy converges after restart, with no orphan worker', async () => {
  const rig = await startProcessRig({
    email: 'crash@example.com',
    tmpPrefix: 'berth-crash-',
    env: { DEPLOY_TIMEOUT_SECONDS: '120', JOB_LEASE_SECONDS: '2' },
  });
  const { tg } = rig;
  const bot = '7400000003:AAfaultControlPlaneKilledDuringDeploy_q';
  tg.addBot(bot);
  tg.broken.add('getMe'); // the deploy cannot finish while Telegram is down
  let cp = await rig.start();
  try {
    const call = callAs(rig.key, () => cp.url);
    const { id, activated } = await rig.buyAndActivate(cp, 'Crash', bot);
    assert.equal(activated.data.status, 'deploying');
    await until('the deploy to reach Telegram', () => tg.brokenAnswers.get('getMe'));
    const hostPids = execFileSync('pgrep', ['-P', String(cp.child.pid), '-f', 'berth-agent.js host'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .map(Number);
    assert.equal(hostPids.length, 1, 'one agent host child');
    cp.child.kill('SIGKILL');
    await until('the agent host to go with its control plane', () => !alive(hostPids[0]!) || undefined, 10_000);

    tg.broken.delete('getMe');
    cp = await rig.start();
    const status = await settledStatus(call, id, 30_000);
    assert.equal(status, 'active');
    tg.userSends(bot, 7403, { text: 'after the crash' });
    assert.equal((await tg.waitForSent((m) => m.chat_id === 7403, 15_000)).text, 'You said: after the crash');
    assert.equal(tg.sent.filter((m) => m.chat_id === 7403).length, 1, 'answered once: no second poller');
  } finally {
    await stopControlPlane(cp);
    await rig.close();
  }
});
