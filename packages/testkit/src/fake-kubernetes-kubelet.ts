// The rest of a cluster behind FakeKubernetes: the Deployment and StatefulSet controllers make
// Pods, a "kubelet" runs each Pod's container as a real local process (with the env the pod spec
// asks for, secretKeyRef values read from the stored Secrets), marks the Pod ready when its
// readiness probe answers 200, and writes readyReplicas back through the status subresource.
// A loopback "cluster network" forwards http://<proxy>/<dns-name>/<path> to the ready Pod behind a
// Service name or a StatefulSet Pod's stable name, as kube-proxy and cluster DNS would.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest, type Server } from 'node:http';
import { createInterface } from 'node:readline';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { close, createServer, listen } from './http.js';
import type { FakeKubernetes, KubeObject } from './fake-kubernetes.js';

export interface RunningContainer {
  url: string;
  stop(): Promise<void>;
}
export type ContainerRunner = (
  pod: KubeObject,
  container: any,
  env: Record<string, string>,
  /** mountPath → a directory on this machine holding that volume (persistent volume claims). */
  mounts?: Record<string, string>,
) => Promise<RunningContainer>;

interface PodState {
  pod: KubeObject;
  /** Where the pod's Secret volumes were written (removed with the pod). */
  secretDir?: string;
  running?: RunningContainer;
  /** The container's start, settled once it runs (or, when the pod was stopped meanwhile, has stopped). */
  starting?: Promise<void>;
  ready: boolean;
  stopped: boolean;
}

/**
 * Runs `node <bin> <container.args...>` with the container's env on 127.0.0.1, port 0; a container
 * that has not said where it listens within `startTimeoutMs` is killed and fails to start.
 */
export function spawnRunner(
  bin: string,
  extraEnv: Record<string, string> = {},
  startTimeoutMs = 60_000,
): ContainerRunner {
  return async (pod, container, env, mounts = {}) => {
    // A claim mounted at DATA_DIR outlives the process; otherwise the pod's own scratch directory.
    const claimed = mounts[env.DATA_DIR ?? '/data'];
    const dataDir = claimed ?? mkdtempSync(join(tmpdir(), `fake-pod-${pod.metadata.name}-`));
    const child: ChildProcess = spawn(process.execPath, [bin, ...(container.args ?? [])], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        ...env,
        ...extraEnv,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        BERTH_EXIT_WITH_PARENT: '1',
      },
    });
    createInterface({ input: child.stderr! }).on('line', () => {});
    // A container that has not started in time is killed, not left running (its pipes kept the
    // test's process alive after everything else stopped); its start fails once it has exited.
    let late = false;
    const started = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        late = true;
        child.kill('SIGKILL');
      }, startTimeoutMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(
          new Error(
            late ? `container did not start within ${startTimeoutMs / 1000} s` : `container exited (code ${code})`,
          ),
        );
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = / listening on (\S+)$/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const url = await started.catch((err: unknown) => {
      if (!claimed) rmSync(dataDir, { recursive: true, force: true });
      throw err;
    });
    return {
      url,
      async stop() {
        if (child.exitCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          // Cleared once the host exits: left running, it held the test's process open 5 s more.
          let grace: NodeJS.Timeout | undefined;
          await Promise.race([exited, new Promise((r) => (grace = setTimeout(r, 5000)))]);
          clearTimeout(grace);
          if (child.exitCode === null) child.kill('SIGKILL');
        }
        if (!claimed) rmSync(dataDir, { recursive: true, force: true });
      },
    };
  };
}

export class FakeKubelet {
  private readonly pods = new Map<string, PodState>();
  private readonly seen = new Map<string, number>();
  /** A bound claim's volume, by claim uid: a directory on this machine, removed with the claim. */
  private readonly volumes = new Map<string, string>();
  /** Deleted pods' containers being stopped, and deleted claims' volumes being removed: stop() waits for both. */
  private readonly podStops = new Set<Promise<void>>();
  private readonly removals = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private proxy: Server | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  proxyUrl = '';

  constructor(
    private readonly api: FakeKubernetes,
    private readonly run: ContainerRunner,
  ) {}

  async start(): Promise<this> {
    this.proxy = createServer((req, res) => {
      const m = /^\/([^/]+)(\/.*)?$/.exec(req.url ?? '/');
      const target = m ? this.resolve(m[1]!) : undefined;
      if (!target) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('no ready endpoints');
        return;
      }
      const up = httpRequest(target + (m![2] ?? '/'), { method: req.method, headers: req.headers }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
      req.pipe(up);
    });
    this.proxyUrl = await listen(this.proxy);
    this.unsubscribe = this.api.subscribe((type, obj) => this.onEvent(type, obj));
    for (const o of this.api.all()) this.onEvent('ADDED', o);
    this.timer = setInterval(() => void this.probe(), 100);
    return this;
  }

  /** What a backend should use as the in-cluster URL of `host:port`. */
  urlFor = (host: string, _port: number) => `${this.proxyUrl}/${host}`;

  async stop() {
    this.closed = true;
    this.unsubscribe?.();
    clearInterval(this.timer);
    // Every container ends before stop() does, those still starting and those of pods deleted a
    // moment ago too: one left running kept the test's process alive after its last test. Its agent
    // also writes to its claim's volume until it exits: removed under it, the volume's removal
    // failed (ENOTEMPTY), and that failure skipped closing the proxy, which then held the process
    // open until the runner's timeout. Whatever fails, the proxy closes; the first failure is thrown
    // after that.
    const stops = await Promise.allSettled([
      ...[...this.pods.values()].map((p) => this.stopPod(p)),
      ...this.podStops,
      ...this.removals,
    ]);
    const failed = stops.find((r) => r.status === 'rejected');
    try {
      for (const dir of this.volumes.values()) rmSync(dir, { recursive: true, force: true });
    } finally {
      if (this.proxy) await close(this.proxy);
    }
    if (failed) throw failed.reason;
  }

  /** Work stop() waits for (a deleted pod's stop, a deleted claim's volume removal), kept in `set`. */
  private track(set: Set<Promise<void>>, work: Promise<unknown>) {
    const done: Promise<void> = work.then(() => {
      set.delete(done);
    });
    // A failed one stays in the set for stop() to report, never an unhandled rejection.
    done.catch(() => {});
    set.add(done);
  }

  /** Processes running now (pods with a started container). */
  get running(): string[] {
    return [...this.pods.values()].filter((p) => p.running && !p.stopped).map((p) => p.pod.metadata.name);
  }

  private resolve(host: string): string | undefined {
    const parts = host.split('.');
    if (parts.at(-1) !== 'svc') return undefined;
    const ready = (p: PodState) => p.ready && !p.stopped && p.running !== undefined;
    if (parts.length === 4) {
      // <pod>.<service>.<ns>.svc: a StatefulSet pod's stable name.
      const [name, sub, ns] = parts;
      const st = [...this.pods.values()].find(
        (p) =>
          p.pod.metadata.name === name && p.pod.spec.subdomain === sub && p.pod.metadata.namespace === ns && ready(p),
      );
      return st?.running!.url;
    }
    if (parts.length !== 3) return undefined;
    // <service>.<ns>.svc: any ready pod the Service selects.
    const [name, ns] = parts as [string, string];
    const svc = this.api.get('Service', ns, name);
    if (!svc?.spec?.selector) return undefined;
    const sel = svc.spec.selector as Record<string, string>;
    const serves = (p: PodState) =>
      ready(p) || (svc.spec.publishNotReadyAddresses === true && !p.stopped && p.running !== undefined);
    const pod = [...this.pods.values()].find(
      (p) =>
        p.pod.metadata.namespace === ns &&
        serves(p) &&
        Object.entries(sel).every(([k, v]) => p.pod.metadata.labels?.[k] === v),
    );
    return pod?.running!.url;
  }

  private onEvent(type: string, obj: KubeObject) {
    if (this.closed) return;
    if (obj.kind === 'Deployment' || obj.kind === 'StatefulSet') {
      // Status writes come back as MODIFIED too; only a new generation needs new pods.
      if (type !== 'DELETED' && this.seen.get(obj.metadata.uid!) !== obj.metadata.generation) {
        this.seen.set(obj.metadata.uid!, obj.metadata.generation!);
        this.reconcileWorkload(obj);
      }
    } else if (obj.kind === 'PersistentVolumeClaim' && type === 'DELETED') {
      // reclaimPolicy Delete, as dynamically provisioned volumes have: the data goes with the claim.
      // As the pvc-protection finalizer has it, the volume goes once the pods being stopped (which
      // may still write to it) have stopped. Looked at a turn later: a StatefulSet's garbage goes
      // claim first, then pod, in one cascade, and that pod's stop must be among them.
      const dir = this.volumes.get(obj.metadata.uid!);
      this.volumes.delete(obj.metadata.uid!);
      if (dir)
        this.track(
          this.removals,
          nextTurn()
            .then(() => Promise.allSettled(this.podStops))
            .then(() => rmSync(dir, { recursive: true, force: true })),
        );
    } else if (obj.kind === 'Pod' && type === 'DELETED') {
      const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
      const st = this.pods.get(key);
      if (st && st.pod.metadata.uid === obj.metadata.uid) {
        this.pods.delete(key);
        this.track(this.podStops, this.stopPod(st));
        // A controller replaces a pod that went away while its owner still wants it.
        const owner = obj.metadata.ownerReferences?.[0];
        const w = owner && this.api.list(owner.kind, obj.metadata.namespace).find((o) => o.metadata.uid === owner.uid);
        if (w)
          setImmediate(() => {
            if (!this.closed) this.reconcileWorkload(w);
          });
      }
    }
  }

  private reconcileWorkload(w: KubeObject) {
    const ns = w.metadata.namespace!;
    const hash = createHash('sha256').update(JSON.stringify(w.spec.template)).digest('hex').slice(0, 10);
    const owned = [...this.pods.values()].filter((p) => p.pod.metadata.ownerReferences?.[0]?.uid === w.metadata.uid);
    const replicas = w.spec.replicas ?? 1;
    const wanted: string[] =
      w.kind === 'StatefulSet' ? Array.from({ length: replicas }, (_, i) => `${w.metadata.name}-${i}`) : [];
    for (const p of owned) {
      const stale = p.pod.metadata.labels?.['pod-template-hash'] !== hash;
      const extra = w.kind === 'StatefulSet' && !wanted.includes(p.pod.metadata.name);
      if (stale || extra) this.api.remove('Pod', ns, p.pod.metadata.name);
    }
    const keep = [...this.pods.values()].filter((p) => p.pod.metadata.ownerReferences?.[0]?.uid === w.metadata.uid);
    const names =
      w.kind === 'StatefulSet'
        ? wanted.filter((n) => !keep.some((p) => p.pod.metadata.name === n))
        : Array.from(
            { length: Math.max(0, replicas - keep.length) },
            () => `${w.metadata.name}-${hash}-${randomBytes(3).toString('hex').slice(0, 5)}`,
          );
    for (const name of names) this.startPod(w, name, hash);
    this.writeStatus(w);
  }

  /**
   * A StatefulSet pod's claims from volumeClaimTemplates (`<template>-<pod>`), created when first
   * needed and kept across the pod's replacement; owned by the StatefulSet (so deleted with it)
   * only when its persistentVolumeClaimRetentionPolicy says whenDeleted: Delete.
   */
  private claimVolumes(w: KubeObject, name: string): any[] {
    if (w.kind !== 'StatefulSet') return [];
    const ns = w.metadata.namespace!;
    return (w.spec.volumeClaimTemplates ?? []).map((t: any) => {
      const claimName = `${t.metadata.name}-${name}`;
      if (!this.api.get('PersistentVolumeClaim', ns, claimName)) {
        const owned = w.spec.persistentVolumeClaimRetentionPolicy?.whenDeleted === 'Delete';
        this.api.put({
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {
            name: claimName,
            namespace: ns,
            labels: { ...t.metadata.labels, ...w.spec.selector?.matchLabels },
            ...(owned
              ? {
                  ownerReferences: [
                    { apiVersion: w.apiVersion, kind: w.kind, name: w.metadata.name, uid: w.metadata.uid! },
                  ],
                }
              : {}),
          },
          spec: t.spec,
        });
      }
      return { name: t.metadata.name, persistentVolumeClaim: { claimName } };
    });
  }

  /** Each persistentVolumeClaim volume the container mounts, bound to a directory here. */
  private mountClaims(ns: string, spec: any, container: any): Record<string, string> {
    const mounts: Record<string, string> = {};
    for (const m of container.volumeMounts ?? []) {
      const vol = (spec.volumes ?? []).find((v: any) => v.name === m.name);
      if (!vol?.persistentVolumeClaim) continue;
      const claim = this.api.get('PersistentVolumeClaim', ns, vol.persistentVolumeClaim.claimName);
      if (!claim) throw new Error(`persistentvolumeclaim "${vol.persistentVolumeClaim.claimName}" not found`);
      let dir = this.volumes.get(claim.metadata.uid!);
      if (!dir) {
        dir = mkdtempSync(join(tmpdir(), `fake-pv-${claim.metadata.name}-`));
        this.volumes.set(claim.metadata.uid!, dir);
        this.api.setStatus('PersistentVolumeClaim', ns, claim.metadata.name, {
          phase: 'Bound',
          accessModes: claim.spec?.accessModes,
          capacity: claim.spec?.resources?.requests,
        });
      }
      mounts[m.mountPath] = dir;
    }
    return mounts;
  }

  private startPod(w: KubeObject, name: string, hash: string) {
    const tpl = w.spec.template;
    const claimVolumes = this.claimVolumes(w, name);
    const pod = this.api.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: w.metadata.namespace,
        labels: { ...tpl.metadata?.labels, 'pod-template-hash': hash },
        annotations: tpl.metadata?.annotations,
        ownerReferences: [{ apiVersion: w.apiVersion, kind: w.kind, name: w.metadata.name, uid: w.metadata.uid! }],
      },
      spec: {
        ...tpl.spec,
        volumes: [...(tpl.spec.volumes ?? []), ...claimVolumes],
        ...(w.kind === 'StatefulSet' ? { hostname: name, subdomain: w.spec.serviceName } : {}),
        nodeName: 'fake-node',
      },
      status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
    });
    const state: PodState = { pod, ready: false, stopped: false };
    this.pods.set(`${pod.metadata.namespace}/${name}`, state);
    const container = tpl.spec.containers[0];
    let env: Record<string, string>;
    let mounts: Record<string, string>;
    try {
      mounts = this.mountClaims(pod.metadata.namespace!, pod.spec, container);
      env = this.resolveEnv(pod.metadata.namespace!, container.env ?? []);
      env = this.mountSecrets(state, tpl.spec, container, env);
    } catch (err) {
      this.api.setStatus('Pod', pod.metadata.namespace!, name, {
        phase: 'Pending',
        containerStatuses: [
          {
            name: container.name,
            ready: false,
            state: { waiting: { reason: 'CreateContainerConfigError', message: (err as Error).message } },
          },
        ],
      });
      return;
    }
    state.starting = this.run(pod, container, env, mounts).then(
      async (running) => {
        if (state.stopped) return running.stop();
        state.running = running;
        this.api.setStatus('Pod', pod.metadata.namespace!, name, {
          phase: 'Running',
          podIP: '127.0.0.1',
          containerStatuses: [
            {
              name: container.name,
              ready: false,
              started: true,
              state: { running: { startedAt: new Date().toISOString() } },
            },
          ],
        });
      },
      (err: Error) => {
        this.api.setStatus('Pod', pod.metadata.namespace!, name, {
          phase: 'Failed',
          containerStatuses: [
            {
              name: container.name,
              ready: false,
              state: { waiting: { reason: 'CrashLoopBackOff', message: err.message } },
            },
          ],
        });
      },
    );
  }

  /**
   * Secret volumes, as a kubelet projects them: each item a file. The container runs on this
   * machine, so the files go to a temporary directory and env values naming the mount path are
   * pointed there.
   */
  private mountSecrets(state: PodState, spec: any, container: any, env: Record<string, string>) {
    const ns = state.pod.metadata.namespace!;
    for (const m of container.volumeMounts ?? []) {
      const vol = (spec.volumes ?? []).find((v: any) => v.name === m.name);
      if (!vol?.secret) continue;
      const secret = this.api.get('Secret', ns, vol.secret.secretName);
      if (!secret) throw new Error(`secret "${vol.secret.secretName}" not found`);
      state.secretDir ??= mkdtempSync(join(tmpdir(), 'fake-pod-secrets-'));
      const dir = join(state.secretDir, m.name);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const items = vol.secret.items ?? Object.keys(secret.data ?? {}).map((key) => ({ key, path: key }));
      for (const it of items) {
        const v = secret.data?.[it.key];
        if (v === undefined) throw new Error(`couldn't find key ${it.key} in Secret ${ns}/${vol.secret.secretName}`);
        writeFileSync(join(dir, it.path), Buffer.from(v, 'base64'), { mode: vol.secret.defaultMode ?? 0o644 });
      }
      for (const [k, v] of Object.entries(env))
        if (v === m.mountPath || v.startsWith(`${m.mountPath}/`)) env[k] = dir + v.slice(m.mountPath.length);
    }
    return env;
  }

  private resolveEnv(ns: string, env: any[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of env) {
      if (e.value !== undefined) out[e.name] = String(e.value);
      else if (e.valueFrom?.secretKeyRef) {
        const ref = e.valueFrom.secretKeyRef;
        const secret = this.api.get('Secret', ns, ref.name);
        const v = secret?.data?.[ref.key];
        if (v === undefined) {
          if (ref.optional) continue;
          throw new Error(
            secret ? `couldn't find key ${ref.key} in Secret ${ns}/${ref.name}` : `secret "${ref.name}" not found`,
          );
        }
        out[e.name] = Buffer.from(v, 'base64').toString('utf8');
      }
    }
    return out;
  }

  private async probe() {
    for (const st of this.pods.values()) {
      if (!st.running || st.stopped) continue;
      const container = st.pod.spec.containers[0];
      const path = container.readinessProbe?.httpGet?.path ?? '/';
      const ok = await new Promise<boolean>((resolve) => {
        const r = httpRequest(st.running!.url + path, { timeout: 2000 }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        });
        r.on('error', () => resolve(false));
        r.on('timeout', () => {
          r.destroy();
          resolve(false);
        });
        r.end();
      });
      if (ok !== st.ready && !st.stopped && !this.closed) {
        st.ready = ok;
        const ns = st.pod.metadata.namespace!;
        this.api.setStatus('Pod', ns, st.pod.metadata.name, {
          phase: 'Running',
          podIP: '127.0.0.1',
          conditions: [{ type: 'Ready', status: ok ? 'True' : 'False' }],
          containerStatuses: [{ name: container.name, ready: ok, started: true, state: { running: {} } }],
        });
        const owner = st.pod.metadata.ownerReferences?.[0];
        const w = owner && this.api.list(owner.kind, ns).find((o) => o.metadata.uid === owner.uid);
        if (w) this.writeStatus(w);
      }
    }
  }

  private writeStatus(w: KubeObject) {
    const owned = [...this.pods.values()].filter((p) => p.pod.metadata.ownerReferences?.[0]?.uid === w.metadata.uid);
    const ready = owned.filter((p) => p.ready).length;
    this.api.setStatus(w.kind, w.metadata.namespace!, w.metadata.name, {
      observedGeneration: w.metadata.generation,
      replicas: owned.length,
      readyReplicas: ready,
      ...(w.kind === 'Deployment'
        ? { availableReplicas: ready, updatedReplicas: owned.length }
        : { currentReplicas: owned.length }),
    });
  }

  private async stopPod(p: PodState) {
    p.stopped = true;
    p.ready = false;
    await p.running?.stop();
    // A container still starting is stopped once it has started (starting's handler does that).
    await p.starting;
    if (p.secretDir) rmSync(p.secretDir, { recursive: true, force: true });
  }
}
