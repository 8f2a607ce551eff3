// Every call the Kubernetes backend makes through the official client has a deadline (api.ts
// CALL_DEADLINE_MS; decision 0030). The client sets none of its own: against an API server that
// accepts the connection and never answers, or sends its headers and stalls in the body, an apply
// waited for ever, and with it the reconcile pass, and the shutdown that waits for the pass.
import { test, before, after } from 'node:test';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApi } from '../src/workers/kubernetes/api.js';
import { createKubernetesWorkers } from '../src/workers/kubernetes/backend.js';
import { WorkerUpstreamError } from '../src/workers/port.js';
import { KUBE_NS, dedicatedOptions, service, startFakeApi } from './helpers/fake-cluster.js';

const DEADLINE_MS = 300;
/** Long past the deadline: a call still waiting then would wait for ever. */
const GIVE_UP_MS = 5_000;

/** 'silent': reads the request, never answers. 'stalled': a 200 and half a JSON body, never ended. */
let mode: 'silent' | 'stalled' = 'silent';
const asked: string[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  asked.push(`${req.method} ${req.url}`);
  req.resume();
  if (mode === 'stalled') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"kind":"APIResourceList","apiVersion":"v1","resources":[');
  }
});
let kc: KubeConfig;

before(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'stuck', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'berth', token: 'a-service-account-token' }],
    contexts: [{ name: 'stuck', cluster: 'stuck', user: 'berth', namespace: KUBE_NS }],
    currentContext: 'stuck',
  });
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** Resolves with the call's rejection; fails the test if it is still waiting after GIVE_UP_MS. */
async function failure(call: () => Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    call().then(
      () => ({ settled: 'resolved' as const }),
      (err: unknown) => ({ settled: 'rejected' as const, err }),
    ),
    new Promise<{ settled: 'waiting' }>((ok) => {
      timer = setTimeout(() => ok({ settled: 'waiting' }), GIVE_UP_MS);
    }),
  ]);
  clearTimeout(timer);
  assert.equal(outcome.settled, 'rejected', `still ${outcome.settled} after ${Date.now() - t0} ms`);
  return { err: (outcome as { err: unknown }).err, ms: Date.now() - t0 };
}

function assertDeadline(err: unknown, what: RegExp) {
  assert.ok(err instanceof WorkerUpstreamError, `a WorkerUpstreamError, not ${String(err)}`);
  assert.equal(err.status, 503);
  assert.match(err.message, what);
  assert.match(err.message, /no answer within 0\.3 s/);
}

const svc = service('asst-k7', { app: 'berth-worker' });
const ref = { apiVersion: 'v1', kind: 'Service', name: 'asst-k7' };

for (const m of ['silent', 'stalled'] as const)
  test(`each call of the client gives up after its deadline when the API server is ${m}`, async () => {
    mode = m;
    const api = new KubeApi(kc, KUBE_NS, DEADLINE_MS);
    const calls: Array<[string, () => Promise<unknown>, RegExp]> = [
      ['apply', () => api.apply(svc), /apply Service asst-k7/],
      ['createOrGet', () => api.createOrGet(svc), /create Service asst-k7/],
      ['read', () => api.read(ref), /read Service asst-k7/],
      ['remove', () => api.remove(ref), /delete Service asst-k7/],
      ['list', () => api.list('v1', 'Service', 'app=berth-worker'), /list Service/],
      ['listMetadataPage', () => api.listMetadataPage('v1', 'services', 'app=berth-worker'), /list services/],
    ];
    for (const [name, call, what] of calls) {
      const before = asked.length;
      const { err, ms } = await failure(call);
      assertDeadline(err, what);
      assert.ok(ms >= DEADLINE_MS - 50, `${name} gave up after ${ms} ms, before its deadline`);
      assert.ok(asked.length > before, `${name} reached the server`);
    }
  });

test('a backend over a silent API server: a list and a create fail, so a pass (and the shutdown waiting for it) ends', async () => {
  mode = 'silent';
  const workers = createKubernetesWorkers({ ...dedicatedOptions(kc), watch: false, callDeadlineMs: DEADLINE_MS });
  try {
    // A pass's first list applies the namespace's own objects first (the call that hung).
    const listed = await failure(() => workers.listWorkers());
    assertDeadline(listed.err, /apply NetworkPolicy/);
    const created = await failure(() =>
      workers.createWorker({ workerName: 'asst-k7' } as Parameters<typeof workers.createWorker>[0]),
    );
    assertDeadline(created.err, /apply NetworkPolicy/);
  } finally {
    workers.close?.();
  }
});

test('answered calls are not cut by the deadline: it is per request, from when it is sent', async () => {
  const { api: fake, kc: real } = await startFakeApi();
  try {
    const api = new KubeApi(real, KUBE_NS, DEADLINE_MS);
    // Calls spread over several deadlines on one client: none of them is cut.
    for (let i = 0; i < 4; i++) {
      await api.apply(service(`asst-q${i}`, { app: 'berth-worker' }));
      await new Promise((r) => setTimeout(r, DEADLINE_MS / 2));
    }
    const names = (await api.list('v1', 'Service', 'app=berth-worker')).map((o) => o.metadata?.name);
    assert.deepEqual(names.sort(), ['asst-q0', 'asst-q1', 'asst-q2', 'asst-q3']);
    assert.equal((await api.read(ref)) ?? 'absent', 'absent');
  } finally {
    await fake.stop();
  }
});
