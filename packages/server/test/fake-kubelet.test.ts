// The fake kubelet's stop() ends every container it started, whatever state each is in: a
// container still starting, or one whose pod was deleted a moment before, was left to finish on its
// own, and its process (the real agent) kept a Kubernetes test file running after its last test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ContainerRunner, FakeKubelet, FakeKubernetes, spawnRunner } from '@berth/testkit';
import { request } from 'undici';
import { until } from './helpers/until.js';

const NS = 'berth-workers';

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }] } },
  },
});

/** A runner whose containers start when `start()` is called and take 200 ms to stop; `events` says what happened. */
function slowRunner() {
  const events: string[] = [];
  let start!: () => void;
  const started = new Promise<void>((r) => (start = r));
  const run: ContainerRunner = async () => {
    await started;
    events.push('started');
    return {
      url: 'http://127.0.0.1:9',
      async stop() {
        await new Promise((r) => setTimeout(r, 200));
        events.push('stopped');
      },
    };
  };
  return { run, events, start };
}

async function cluster(run: ContainerRunner) {
  const api = await new FakeKubernetes({ namespaces: [NS] }).start();
  const kubelet = await new FakeKubelet(api, run).start();
  return { api, kubelet };
}

test('stop() waits for a container still starting: it is started, then stopped, before stop() returns', async () => {
  const r = slowRunner();
  const { api, kubelet } = await cluster(r.run);
  try {
    api.put(deployment('asst-one'));
    await until('the pod', () => api.list('Pod', NS)[0]);
    const stopping = kubelet.stop();
    setTimeout(r.start, 100);
    await stopping;
    assert.deepEqual(r.events, ['started', 'stopped']);
  } finally {
    await api.stop();
  }
});

test("stop() waits for the container of a pod deleted a moment before (its Deployment's removal)", async () => {
  const r = slowRunner();
  r.start();
  const { api, kubelet } = await cluster(r.run);
  try {
    api.put(deployment('asst-two'));
    await until('the container', () => (kubelet.running.length === 1 ? true : undefined));
    api.remove('Deployment', NS, 'asst-two');
    assert.deepEqual(api.list('Pod', NS), [], 'the pod went with its Deployment');
    await kubelet.stop();
    assert.deepEqual(r.events, ['started', 'stopped']);
  } finally {
    await api.stop();
  }
});

test('stop() closes its proxy even when a container fails to stop, and then reports that failure', async () => {
  const run: ContainerRunner = async () => ({
    url: 'http://127.0.0.1:9',
    stop: () => Promise.reject(new Error('ENOTEMPTY: directory not empty, rmdir /tmp/fake-pv-data')),
  });
  const { api, kubelet } = await cluster(run);
  try {
    api.put(deployment('asst-four'));
    await until('the container', () => (kubelet.running.length === 1 ? true : undefined));
    await assert.rejects(kubelet.stop(), /ENOTEMPTY/);
    await assert.rejects(request(kubelet.proxyUrl), { code: 'ECONNREFUSED' }, 'the proxy no longer listens');
  } finally {
    await api.stop();
  }
});

test("a StatefulSet's claim deleted with it keeps its volume until its pod has stopped (the claim goes first in the cascade)", async () => {
  let volume = '';
  const events: string[] = [];
  const run: ContainerRunner = async (_pod, _container, _env, mounts = {}) => {
    volume = mounts['/data']!;
    return {
      url: 'http://127.0.0.1:9',
      async stop() {
        await new Promise((r) => setTimeout(r, 200));
        // The agent's last write as it stops (SQLite's log): the volume must still be there.
        writeFileSync(join(volume, 'last-write'), 'x');
        events.push('stopped');
      },
    };
  };
  const { api, kubelet } = await cluster(run);
  try {
    api.put({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'agent-host', namespace: NS },
      spec: {
        replicas: 1,
        serviceName: 'agent-host',
        selector: { matchLabels: { app: 'agent-host' } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
        template: {
          metadata: { labels: { app: 'agent-host' } },
          spec: {
            containers: [{ name: 'agent', image: 'agent:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
          },
        },
      },
    });
    await until('the container', () => (kubelet.running.length === 1 ? true : undefined));
    api.remove('StatefulSet', NS, 'agent-host');
    assert.deepEqual(api.list('PersistentVolumeClaim', NS), [], 'the claim went with it');
    await kubelet.stop();
    assert.deepEqual(events, ['stopped']);
    assert.equal(existsSync(volume), false, 'the volume is gone once the pod stopped');
  } finally {
    await api.stop();
  }
});

test('a container that never says where it listens is killed when its start times out, not left running', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'berth-never-listens-'));
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const run = spawnRunner(join(import.meta.dirname, 'fixtures/never-listens.mjs'), {}, 1_000);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'asst-three', namespace: NS }, spec: {} };
  await assert.rejects(
    run(pod, { name: 'agent' }, { DATA_DIR: '/data' }, { '/data': data }),
    /did not start within 1 s/,
  );
  const pid = Number(readFileSync(join(data, 'pid'), 'utf8'));
  await until(
    'the container gone',
    () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    },
    5_000,
  );
});
