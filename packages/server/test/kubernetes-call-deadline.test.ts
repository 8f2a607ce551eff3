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
import { settledWithin } from './helpers/settled-within.js';

/**
 * A second: the deadline runs from when the request is sent, and the fake API server answers in
 * this same process: starved (two suites on two cores), it let 300 ms pass before its server saw
 * any request, and the apply failed on the deadline of a request the test never saw sent.
 */
const DEADLINE_MS = 1_000;
/** Long past the deadline: a call still waiting then would wait for ever. */
const GIVE_UP_MS = 15_000;

/**
 * The resource discovery a client sends once per API version is answered, so what meets the fault
 * is the call's own request (a client's discovery is cached after its first success: a stuck
 * request in production is an apply, a read, a list). 'silent': the request is read, never
 * answered. 'stalled': a 200 and half a JSON body, never ended. 'conflict': a create is refused as
 * existing (409) and the read that follows is never answered.
 */
let mode: 'silent' | 'stalled' | 'conflict' = 'silent';
/** An API server's discovery answer for a group version that serves one namespaced kind. */
const resourceList = (groupVersion: string, name: string, singularName: string, kind: string) => ({
  kind: 'APIResourceList',
  groupVersion,
  resources: [{ name, singularName, namespaced: true, kind, verbs: ['create', 'delete', 'get', 'list', 'patch'] }],
});
const DISCOVERY: Record<string, object> = {
  '/api/v1': resourceList('v1', 'services', 'service', 'Service'),
  '/apis/networking.k8s.io/v1': resourceList(
    'networking.k8s.io/v1',
    'networkpolicies',
    'networkpolicy',
    'NetworkPolicy',
  ),
};
const asked: string[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  asked.push(`${req.method} ${req.url}`);
  req.resume();
  const discovery = DISCOVERY[req.url!];
  if (discovery) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(discovery));
    return;
  }
  if (mode === 'conflict' && req.method === 'POST') {
    res.writeHead(409, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'AlreadyExists',
        code: 409,
        message: 'services "asst-k7" already exists',
      }),
    );
    return;
  }
  if (mode === 'stalled') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"kind":"Service","apiVersion":"v1","metadata":{"name":"asst-k7",');
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
  const outcome = await settledWithin(GIVE_UP_MS, call());
  assert.equal(outcome.state, 'rejected', `still ${outcome.state} after ${Date.now() - t0} ms`);
  return { err: (outcome as { err: unknown }).err, ms: Date.now() - t0 };
}

function assertDeadline(err: unknown, what: RegExp) {
  assert.ok(err instanceof WorkerUpstreamError, `a WorkerUpstreamError, not ${String(err)}`);
  assert.equal(err.status, 503);
  assert.match(err.message, what);
  assert.match(err.message, /no answer within 1 s/);
}

const svc = service('asst-k7', { app: 'berth-worker' });
const ref = { apiVersion: 'v1', kind: 'Service', name: 'asst-k7' };

const SERVICES = `/api/v1/namespaces/${KUBE_NS}/services`;

/** Runs `call`, which must fail on the deadline of the request that `last` names (the last one sent). */
async function failsOnItsDeadline(name: string, call: () => Promise<unknown>, what: RegExp, last: RegExp) {
  const before = asked.length;
  const { err, ms } = await failure(call);
  assertDeadline(err, what);
  assert.ok(ms >= DEADLINE_MS - 50, `${name} gave up after ${ms} ms, before its deadline`);
  // Well under the give-up: a deadline ten times too long (10 s) is caught too.
  assert.ok(ms < 5_000, `${name} gave up only after ${ms} ms`);
  const sent = asked.slice(before);
  assert.match(sent.at(-1) ?? 'nothing', last, `${name} sent ${sent.join(', ')}`);
}

for (const m of ['silent', 'stalled'] as const)
  test(`each call of the client gives up after its deadline when the API server is ${m}`, async () => {
    mode = m;
    const api = new KubeApi(kc, KUBE_NS, DEADLINE_MS);
    const listed = new RegExp(`^GET ${SERVICES}\\?.*labelSelector=app%3Dberth-worker`);
    const calls: Array<[string, () => Promise<unknown>, RegExp, RegExp]> = [
      ['apply', () => api.apply(svc), /apply Service asst-k7/, new RegExp(`^PATCH ${SERVICES}/asst-k7`)],
      ['createOrGet', () => api.createOrGet(svc), /create Service asst-k7/, new RegExp(`^POST ${SERVICES}`)],
      ['read', () => api.read(ref), /read Service asst-k7/, new RegExp(`^GET ${SERVICES}/asst-k7`)],
      ['remove', () => api.remove(ref), /delete Service asst-k7/, new RegExp(`^DELETE ${SERVICES}/asst-k7`)],
      ['list', () => api.list('v1', 'Service', 'app=berth-worker'), /list Service/, listed],
      ['listMetadataPage', () => api.listMetadataPage('v1', 'services', 'app=berth-worker'), /list services/, listed],
    ];
    for (const [name, call, what, last] of calls) await failsOnItsDeadline(name, call, what, last);
  });

test('a create refused as existing, then a read that is never answered: the read gives up on its own deadline', async () => {
  mode = 'conflict';
  const api = new KubeApi(kc, KUBE_NS, DEADLINE_MS);
  await failsOnItsDeadline(
    'createOrGet',
    () => api.createOrGet(svc),
    /read Service asst-k7/,
    new RegExp(`^GET ${SERVICES}/asst-k7`),
  );
});

test('a backend over a silent API server: a list and a create fail, so a pass (and the shutdown waiting for it) ends', async () => {
  mode = 'silent';
  const workers = createKubernetesWorkers({ ...dedicatedOptions(kc), watch: false, callDeadlineMs: DEADLINE_MS });
  const policy = new RegExp(`^PATCH /apis/networking.k8s.io/v1/namespaces/${KUBE_NS}/networkpolicies/`);
  try {
    // A pass's first list applies the namespace's own objects first (the call that hung).
    await failsOnItsDeadline('listWorkers', () => workers.listWorkers(), /apply NetworkPolicy/, policy);
    await failsOnItsDeadline(
      'createWorker',
      () => workers.createWorker({ workerName: 'asst-k7' } as Parameters<typeof workers.createWorker>[0]),
      /apply NetworkPolicy/,
      policy,
    );
  } finally {
    workers.close?.();
  }
});

test('answered calls are not cut by the deadline: it is per request, from when it is sent', async () => {
  const { api: fake, kc: real } = await startFakeApi();
  // Longer here: a loaded machine must answer each request within it.
  const deadlineMs = 1_500;
  try {
    const api = new KubeApi(real, KUBE_NS, deadlineMs);
    // Past a deadline from the client's making, then calls spread over another: none is cut.
    await new Promise((r) => setTimeout(r, deadlineMs + 200));
    for (let i = 0; i < 3; i++) {
      await api.apply(service(`asst-q${i}`, { app: 'berth-worker' }));
      await new Promise((r) => setTimeout(r, deadlineMs / 2));
    }
    const names = (await api.list('v1', 'Service', 'app=berth-worker')).map((o) => o.metadata?.name);
    assert.deepEqual(names.sort(), ['asst-q0', 'asst-q1', 'asst-q2']);
    assert.equal((await api.read(ref)) ?? 'absent', 'absent');
  } finally {
    await fake.stop();
  }
});
