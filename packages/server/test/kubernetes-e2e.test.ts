// WORKER_BACKEND=kubernetes end to end: the control plane drives the official client against a
// loopback Kubernetes API; a fake kubelet runs each pod as the real agent process (env and
// secretKeyRefs resolved as a kubelet would) behind a stand-in for cluster networking. Deploy →
// active → chat → stop → redeploy → delete in both placements, with nothing of Berth's left. With
// METRICS_TOKEN set, each agent pod serves its own /metrics (the chart's PodMonitor scrapes them).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { request } from 'undici';
import { type FakeKubelet, type FakeKubernetes, promtoolFindings } from '@berth/testkit';
import { defaultSettings } from '@berth/contracts/settings';
import type { E2E } from './helpers/e2e.js';
import { TEST_SECRETS_KEY } from './helpers/database.js';
import { reconcilePass } from '../src/reconciler/reconcile-pass.js';
import { DesiredIndex } from '../src/reconciler/desired-index.js';
import { workerPages } from '../src/workers/port.js';
import { validateObject } from './kubernetes/validate.js';
import { until as poll } from './helpers/until.js';
import { KUBE_NS as NS, startKubernetesE2E, type KubernetesE2E } from './helpers/fake-cluster.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BOT2_OF_SHARED = '7200000013:AAkubeSecondSharedBotTokenForTests_x';
const METRICS_TOKEN = 'kube-metrics-token-0123456789abcdef';

async function chat(e: E2E, id: string, content: string) {
  return e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content }],
  });
}

const until = <T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000) =>
  poll(what, fn, timeoutMs, 100);

/** Berth's objects in the namespace, less the NetworkPolicy and metrics token of whatever runs there. */
function leftovers(api: FakeKubernetes) {
  return api
    .all()
    .filter((o) => o.kind !== 'NetworkPolicy' && o.metadata.name !== 'berth-metrics')
    .map((o) => `${o.kind}/${o.metadata.name}`);
}

function assertNoCredentialInSpecs(api: FakeKubernetes, secrets: string[]) {
  for (const o of api.all().filter((x) => x.kind !== 'Secret')) {
    const text = JSON.stringify(o);
    for (const s of secrets) assert.ok(!text.includes(s), `${o.kind}/${o.metadata.name} carries a credential`);
  }
}

for (const placement of ['dedicated', 'shared'] as const) {
  describe(`kubernetes backend, ${placement} placement`, () => {
    const BOT =
      placement === 'shared'
        ? '7200000011:AAkubeSharedBotTokenForBackendTests_x'
        : '7200000012:AAkubeDedicatedBotTokenForTests_xyz';
    let k: KubernetesE2E;
    let api: FakeKubernetes;
    let kubelet: FakeKubelet;
    let e: E2E;
    let id: string;

    before(async () => {
      // One assistant per host in the shared placement, so a second assistant needs a second host.
      k = await startKubernetesE2E({ KUBERNETES_PLACEMENT: placement, KUBERNETES_HOST_CAPACITY: '1', METRICS_TOKEN });
      ({ api, kubelet, e } = k);
      e.tg.addBot(BOT);
    });
    after(async () => {
      await k?.close();
    });

    test('activate → active, with the workloads applied server-side and valid', async () => {
      id = await e.activate(BOT);
      const view = await e.waitForStatus(id, ['active', 'failed'], 60_000);
      assert.equal(view.status, 'active', view.statusMessage);
      const applies = api.requests.filter((r) => r.method === 'PATCH');
      assert.ok(
        applies.length > 0 &&
          applies.every(
            (r) => r.contentType === 'application/apply-patch+yaml' && r.query.fieldManager === 'berth-control-plane',
          ),
      );
      // berth-metrics: the agents' METRICS_TOKEN, one per namespace like the NetworkPolicy.
      assert.ok(api.get('Secret', NS, 'berth-metrics'), 'the metrics token is in the workers namespace');
      const kinds = api
        .all()
        .filter((o) => o.metadata.name !== 'berth-metrics')
        .map((o) => o.kind)
        .sort();
      if (placement === 'dedicated') {
        assert.deepEqual(kinds, ['Deployment', 'NetworkPolicy', 'PersistentVolumeClaim', 'Pod', 'Secret', 'Service']);
        assert.match(view.workerUrl, new RegExp(`/asst-[a-z0-9-]+\\.${NS}\\.svc$`));
      } else {
        assert.deepEqual(kinds, ['NetworkPolicy', 'PersistentVolumeClaim', 'Pod', 'Secret', 'Service', 'StatefulSet']);
        assert.match(view.workerUrl, new RegExp(`/berth-agent-host-0\\.berth-agent-host\\.${NS}\\.svc/agents/asst-`));
      }
      for (const o of api.all()) if (o.kind !== 'Pod') validateObject(o);
    });

    test('chat reaches the agent in its pod, and Telegram is answered', async () => {
      const res = await chat(e, id, 'hello cluster');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.choices[0].message.content, 'You said: hello cluster');
      e.tg.userSends(BOT, 9101, { text: 'hi from telegram' });
      const reply = await e.tg.waitForSent((m) => m.chat_id === 9101);
      assert.equal(reply.text, 'You said: hi from telegram');
    });

    test("the agent pod serves /metrics to the control plane's METRICS_TOKEN, read from the Secret by reference", async () => {
      const pod = api.all().find((o) => o.kind === 'Pod') as unknown as {
        spec: { containers: Array<{ env: Array<{ name: string; valueFrom?: unknown }> }> };
      };
      assert.deepEqual(pod.spec.containers[0]!.env.find((v) => v.name === 'METRICS_TOKEN')?.valueFrom, {
        secretKeyRef: { name: 'berth-metrics', key: 'metrics-token', optional: true },
      });
      // The pod behind its Service: the host's headless Service, or the worker's own.
      const service = api.all().find((o) => o.kind === 'Service')!.metadata.name;
      const host = placement === 'shared' ? `berth-agent-host-0.${service}.${NS}.svc` : `${service}.${NS}.svc`;
      const scrape = (auth?: string) =>
        request(`${kubelet.urlFor(host, 8090)}/metrics`, { headers: auth ? { authorization: auth } : {} });
      for (const auth of [undefined, 'Bearer not-the-metrics-token-0123456789']) {
        const res = await scrape(auth);
        assert.equal(res.statusCode, 401, String(auth));
        assert.equal(((await res.body.json()) as { error: { code: string } }).error.code, 'UNAUTHORIZED');
      }
      const res = await scrape(`Bearer ${METRICS_TOKEN}`);
      assert.equal(res.statusCode, 200);
      const text = await res.body.text();
      assert.match(text, /^berth_agents\{state="connected"\} 1$/m);
      assert.match(text, /^berth_agent_host_rss_bytes \d+$/m);
      const findings = promtoolFindings(text);
      if (findings !== undefined) assert.equal(findings, '', 'no lint findings');
    });

    test('a settings PUT reaches the running pod in place: the next model call has the new persona', async () => {
      const pods = () =>
        api
          .all()
          .filter((o) => o.kind === 'Pod')
          .map((o) => o.metadata.uid)
          .sort();
      const before = pods();
      const res = await e.api('PUT', `/api/v1/assistants/${id}/settings`, {
        ...defaultSettings(),
        systemPrompt: `You are the ${placement} persona.`,
      });
      assert.equal(res.status, 200, res.text);
      const asked = e.provider.requests.length;
      e.tg.userSends(BOT, 9150, { text: 'who are you now?' });
      await e.tg.waitForSent((m) => m.chat_id === 9150);
      const call = e.provider.requests.slice(asked).find((r) => JSON.stringify(r.body).includes('who are you now?'))!;
      assert.deepEqual(call.body.messages[0], { role: 'system', content: `You are the ${placement} persona.` });
      assert.deepEqual(pods(), before, 'no pod was replaced');
      assert.equal((await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');
      if (placement === 'dedicated') {
        // Kept in the Secret for the pod's next start.
        const secret = api.get('Secret', NS, `asst-${id.toLowerCase()}`)!;
        const doc = JSON.parse(Buffer.from(secret.data!.settings, 'base64').toString('utf8'));
        assert.equal(doc.systemPrompt, `You are the ${placement} persona.`);
      }
    });

    test('no credential appears in any workload, pod or service', async () => {
      const d = await e.runtime.services.deployments.findById(id);
      const gateway = e.runtime.secrets.open(d!.gatewayTokenEnc!);
      assertNoCredentialInSpecs(api, [BOT, gateway, 'sk-test-model-key-0123456789abcdef', METRICS_TOKEN]);
    });

    if (placement === 'dedicated') {
      test("a worker deleted behind Berth's back is seen by the next pass with no list of the API server, and deployed again", async () => {
        const workers = e.runtime.services.workers;
        const lists = () => api.listRequests('deployments').length + api.listRequests('services').length;
        // The passes so far started the watch (issue 30): a walk answers from it once it is synced.
        await until('the workers to be watched', async () => {
          const before = lists();
          for await (const _ of workerPages(workers));
          return lists() === before || undefined;
        });
        const name = `asst-${id.toLowerCase()}`;
        const uid = api.get('Deployment', NS, name)!.metadata.uid;
        const before = lists();
        // kubectl delete deploy,svc: not through Berth.
        api.remove('Deployment', NS, name);
        api.remove('Service', NS, name);
        await until('the watch to bring the deletion', async () => {
          const names = new Set<string>();
          for await (const page of workerPages(workers)) for (const n of page) names.add(n);
          return !names.has(name) || undefined;
        });
        // The next pass (this one, or the reconciler's own, whichever runs first) redeploys it.
        await reconcilePass(e.runtime.services, new DesiredIndex());
        await until('the Deployment to be back', () => {
          const d = api.get('Deployment', NS, name);
          return (d && d.metadata.uid !== uid) || undefined;
        });
        assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
        assert.equal(lists() - before, 0, 'no list of Deployments or Services meanwhile');
        assert.equal(
          (await chat(e, id, 'after the deletion')).json.choices[0].message.content,
          'You said: after the deletion',
        );
      });
    }

    test('stop removes every object of the worker; redeploy brings it back', async () => {
      const stopped = await e.api('POST', `/api/v1/assistants/${id}/stop`);
      assert.equal(stopped.status, 200, stopped.text);
      await e.runtime.idle();
      assert.deepEqual((await e.runtime.services.workers.listWorkers()).names, []);
      await until('pods to end', () => kubelet.running.length === 0 || undefined);
      // A dedicated worker's data claim outlives a stop (0024); a delete removes it.
      const kept = placement === 'dedicated' ? [`PersistentVolumeClaim/asst-${id.toLowerCase()}-data`] : [];
      assert.deepEqual(leftovers(api), kept);
      // The pod's exit and the end of its long poll reach this process as two events, in either order.
      await until('the bot to stop polling', () => e.tg.activePolls(BOT) === 0 || undefined);

      assert.equal((await e.api('POST', `/api/v1/assistants/${id}/redeploy`)).status, 200);
      assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
      assert.equal((await chat(e, id, 'back again')).json.choices[0].message.content, 'You said: back again');
    });

    if (placement === 'shared') {
      test('a host pod that dies comes back, and reconciling puts the assistant back on it', async () => {
        const before = api.get('Pod', NS, 'berth-agent-host-0')!.metadata.uid;
        api.remove('Pod', NS, 'berth-agent-host-0');
        // A new pod (a new uid) runs again. It starts empty; the continuous reconciler may refill it
        // before this test looks, so the empty moment is not waited for (it can be too short to see).
        await until('the host pod to come back', async () => {
          const pod = api.get('Pod', NS, 'berth-agent-host-0');
          return (pod && pod.metadata.uid !== before && kubelet.running.includes('berth-agent-host-0')) || undefined;
        });
        await reconcilePass(e.runtime.services, new DesiredIndex(), { restore: true });
        await until(
          'ready again',
          async () => (await e.runtime.services.workers.workerHealth(`asst-${id.toLowerCase()}`)).ready || undefined,
        );
        // The continuous reconciler may have seen the gap first (deploying, then active again), and
        // may still be putting the assistant back after this test's own pass: until then a chat is
        // answered "not ready" (once under a second suite's load). Asked until it answers.
        assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
        let last = '';
        const answered = await until('the assistant to answer after the restart', async () => {
          const res = await chat(e, id, 'after the restart');
          last = `${res.status} ${res.text}`;
          return res.status === 200 ? res : undefined;
        }).catch((err: Error) => assert.fail(`${err.message}; its last answer: ${last}`));
        assert.equal(answered.json.choices[0].message.content, 'You said: after the restart');
      });
    }

    if (placement === 'shared') {
      test('a full host makes the StatefulSet grow; scaled down, its assistant is re-placed on a live host', async () => {
        const BOT2 = BOT2_OF_SHARED;
        e.tg.addBot(BOT2);
        const second = await e.activate(BOT2);
        assert.equal((await e.waitForStatus(second, ['active', 'failed'], 60_000)).status, 'active');
        const placements = e.runtime.store.repos.placements;
        assert.deepEqual((await placements.all()).map((p) => p.host).sort(), [0, 1]);
        assert.equal(api.get('StatefulSet', NS, 'berth-agent-host')!.spec.replicas, 2);
        // Host 0 empties; the operator scales the hosts down to one, taking host 1 away.
        assert.equal((await e.api('DELETE', `/api/v1/assistants/${id}`)).status, 200);
        const set = api.get('StatefulSet', NS, 'berth-agent-host')!;
        api.put({ ...set, spec: { ...set.spec, replicas: 1 } });
        await until('host 1 to go', () => !kubelet.running.includes('berth-agent-host-1') || undefined);
        assert.deepEqual((await e.runtime.services.workers.listWorkers()).names, []);
        // Through the runtime's reconciler, one pass at a time: a pass of our own beside its steady
        // pass raced it (that pass saw the worker gone and redeployed it with a new gateway token
        // while ours created it with the old one, whose model calls the gateway then refused).
        // The steady pass may have seen the gap first (deploying, then active again).
        await e.runtime.reconciler.restore();
        assert.equal((await e.waitForStatus(second, ['active', 'failed'], 60_000)).status, 'active');
        assert.deepEqual(await placements.all(), [{ workerName: `asst-${second.toLowerCase()}`, host: 0 }]);
        assert.equal(api.get('StatefulSet', NS, 'berth-agent-host')!.spec.replicas, 1, 'no new host was needed');
        await until(
          'ready on host 0',
          async () =>
            (await e.runtime.services.workers.workerHealth(`asst-${second.toLowerCase()}`)).ready || undefined,
        );
        e.tg.userSends(BOT2, 9102, { text: 'moved' });
        assert.equal((await e.tg.waitForSent((m) => m.chat_id === 9102)).text, 'You said: moved');
        id = second;
      });
    }

    if (placement === 'shared') {
      test('the operator moves one assistant to a dedicated placement and back (berth admin placement)', async () => {
        const worker = `asst-${id.toLowerCase()}`;
        const placements = e.runtime.store.repos.placements;
        const berth = (...args: string[]) =>
          spawnSync(process.execPath, [join(ROOT, 'packages/cli/bin/berth.js'), 'admin', 'placement', ...args], {
            env: {
              ...process.env,
              DATA_DIR: e.dataDir,
              ...(e.databaseUrl ? { DATABASE_URL: e.databaseUrl, SECRETS_KEY: TEST_SECRETS_KEY } : {}),
            },
            encoding: 'utf8',
            timeout: 60_000,
          });
        const refused = berth('--deployment', id, '--placement', 'sideways');
        assert.equal(refused.status === 0, false);
        assert.match(refused.stderr, /placement must be one of shared, dedicated, default/);
        const moved = berth('--deployment', id, '--placement', 'dedicated');
        assert.equal(moved.status, 0, moved.stderr);
        assert.match(moved.stderr, /next redeploy/);
        assert.ok(api.get('StatefulSet', NS, 'berth-agent-host'), 'nothing moves before the next deploy');

        assert.equal((await e.api('POST', `/api/v1/assistants/${id}/redeploy`)).status, 200);
        assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
        assert.ok(api.get('Deployment', NS, worker), 'a Deployment of its own');
        assert.deepEqual(await placements.all(), [], 'no longer on a shared host');
        await until('the shared hosts to go', () => !api.get('StatefulSet', NS, 'berth-agent-host') || undefined);
        assert.equal((await chat(e, id, 'on my own')).json.choices[0].message.content, 'You said: on my own');
        assert.equal(e.tg.activePolls(BOT2_OF_SHARED), 1, 'exactly one poller for its bot');

        assert.equal(berth('--deployment', id, '--placement', 'default').status, 0);
        assert.equal((await e.api('POST', `/api/v1/assistants/${id}/redeploy`)).status, 200);
        assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
        await until('its Deployment to go', () => !api.get('Deployment', NS, worker) || undefined);
        assert.deepEqual(
          (await placements.all()).map((p) => p.workerName),
          [worker],
          'back on a shared host',
        );
        assert.equal((await chat(e, id, 'shared again')).json.choices[0].message.content, 'You said: shared again');
      });
    }

    test('a worker whose token Telegram rejects ends failed, saying why, and its objects go', async () => {
      const bad = await e.activate('7299999999:AAtokenThatTheFakeTelegramDoesNotKnow_z');
      const view = await e.waitForStatus(bad, ['active', 'failed'], 60_000);
      assert.equal(view.status, 'failed');
      assert.match(view.statusMessage, /Telegram rejected the bot token/);
      assert.equal((await e.api('DELETE', `/api/v1/assistants/${bad}`)).status, 200);
      await e.runtime.idle();
      assert.ok(!(await e.runtime.services.workers.listWorkers()).names.includes(`asst-${bad.toLowerCase()}`));
    });

    test('delete leaves nothing of Berth in the namespace', async () => {
      assert.equal((await e.api('DELETE', `/api/v1/assistants/${id}`)).status, 200);
      await e.runtime.idle();
      assert.deepEqual((await e.runtime.services.workers.listWorkers()).names, []);
      await until('pods to end', () => kubelet.running.length === 0 || undefined);
      assert.deepEqual(leftovers(api), []);
      assert.deepEqual(await e.runtime.store.repos.placements.all(), []);
    });
  });
}
