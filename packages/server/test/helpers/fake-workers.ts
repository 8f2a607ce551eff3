// A workers backend for control-plane tests that do not need a real agent: it follows the port's
// contract (create or replace by name; 404 on delete of an unknown worker is 'not_found').
import type { AssistantSettings } from '@berth/contracts/settings';
import { pageOfNames, WorkerUpstreamError, type WorkersPort, type WorkerSpec } from '../../src/index.js';

export class FakeWorkers implements WorkersPort {
  readonly name = 'fake';
  readonly workers = new Map<string, WorkerSpec>();
  createFailure: string | undefined;
  deleteStatus: number | undefined;
  /** Where workers appear to run; a closed port by default (chat then meets a refused connection). */
  urlBase = 'http://127.0.0.1:9';
  /** Holds createWorker until released, to observe the `deploying` state. */
  gate: Promise<void> | undefined;

  /**
   * Lets every createWorker held on a gate go on, and fails every hung list, for good (the
   * harness's close, first): a test that fails before it releases its gate would otherwise leave
   * the deploy job, and the runtime's close that waits for it, waiting for ever.
   */
  releaseHeld() {
    this.closing();
    this.listFault = undefined;
  }
  private closing!: () => void;
  private readonly closed = new Promise<void>((r) => {
    this.closing = r;
  });

  /** How many createWorker calls started (a test waits for one to be in flight). */
  createCalls = 0;

  async createWorker(spec: WorkerSpec) {
    this.createCalls++;
    if (this.gate) await Promise.race([this.gate, this.closed]);
    if (this.createFailure) throw new Error(this.createFailure);
    this.workers.set(spec.workerName, spec);
    return { workerUrl: `${this.urlBase}/agents/${spec.workerName}` };
  }

  /** What troubledWorkers answers: worker name → its reason (the health watch reads it). */
  readonly troubles = new Map<string, string>();

  /** Set: a backend every replica shares (Kubernetes), whose health only the leader watches. */
  clusterWide = false;
  /** How many times troubledWorkers was asked. */
  troubleReads = 0;

  async troubledWorkers() {
    this.troubleReads++;
    return new Map([...this.troubles].filter(([name]) => this.workers.has(name)));
  }

  /** What workerHealth answers; ready by default. */
  health: { ready: boolean; failed: boolean; reason: string | null } = { ready: true, failed: false, reason: null };

  async workerHealth(name: string) {
    return this.workers.has(name) ? this.health : { ready: false, failed: false, reason: 'the worker is not running' };
  }

  /**
   * Makes listWorkers fail ('unreachable') or not answer ('hang'), as a backend that is down. A
   * hung call fails once the fault is cleared, as the agent host's client does after 15 s without
   * an answer: one that never settled held a steady pass that had listed meanwhile, and closing
   * the control plane waited on that pass for ever (a CI run hung so).
   */
  get listFault() {
    return this.fault;
  }
  set listFault(fault: 'unreachable' | 'hang' | undefined) {
    this.fault = fault;
    if (fault === 'hang') return;
    for (const timedOut of this.hung.splice(0))
      timedOut(new WorkerUpstreamError(undefined, 'the backend did not answer in time'));
  }
  private fault: 'unreachable' | 'hang' | undefined;
  private readonly hung: Array<(err: Error) => void> = [];

  /** How many listWorkers calls are waiting on a 'hang' fault now. */
  get hangingLists() {
    return this.hung.length;
  }

  /** Each listWorkers call answers this late (a slow backend: the pass that lists takes as long). */
  listDelayMs = 0;

  /** While set, each listWorkers call waits for it (a pass held where the test wants it); `listing` says one does. */
  listGate: Promise<void> | undefined;
  listing = false;

  async listWorkers(page?: { cursor?: string; limit?: number }) {
    if (this.listDelayMs) await new Promise((r) => setTimeout(r, this.listDelayMs));
    if (this.listGate) {
      this.listing = true;
      await this.listGate;
      this.listing = false;
    }
    if (this.fault === 'hang') return new Promise<never>((_, reject) => this.hung.push(reject));
    if (this.fault) throw new WorkerUpstreamError(undefined, 'the backend could not be reached');
    return pageOfNames(this.workers.keys(), page);
  }

  /** Every settings push, in order (a worker that does not exist is not created). */
  readonly settingsPushes: Array<{ workerName: string; settings: AssistantSettings }> = [];

  async applySettings(name: string, settings: AssistantSettings) {
    const spec = this.workers.get(name);
    if (!spec) return 'not_found' as const;
    this.settingsPushes.push({ workerName: name, settings });
    this.workers.set(name, { ...spec, settings });
    return 'applied' as const;
  }

  /** Every webhook update a worker took (POST /updates, DESIGN §9.1), in order. */
  readonly updates: Array<{ workerName: string; body: any }> = [];
  /** What POST /updates answers while set (a worker that refuses or is restarting); 200 otherwise. */
  updateStatus: number | undefined;
  /** Called with each update a worker took (a test waits on it instead of polling). */
  onUpdate: ((u: { workerName: string; body: any }) => void) | undefined;

  /** No pairing codes here (the e2e tests read them from the real agent host); updates are taken. */
  async assistantCall(name: string, method: string, path: string, body?: unknown) {
    if (method === 'POST' && path === '/updates' && this.workers.has(name)) {
      if (this.updateStatus) return { status: this.updateStatus, json: undefined };
      const u = { workerName: name, body };
      this.updates.push(u);
      this.onUpdate?.(u);
      return { status: 200, json: { data: { accepted: true } } };
    }
    return { status: 404, json: undefined };
  }

  /** Set to act as a per-replica backend (the local agent host's): each replica prunes its own. */
  perReplica: boolean | undefined;
  /** Every worker deleted with `purge` (its users' data deleted too), in order. */
  readonly purged: string[] = [];

  async deleteWorker(name: string, opts: { purge?: boolean } = {}) {
    if (this.deleteStatus && this.deleteStatus !== 404) {
      throw new WorkerUpstreamError(this.deleteStatus, `upstream answered ${this.deleteStatus}`);
    }
    if (opts.purge) this.purged.push(name);
    return this.workers.delete(name) ? 'deleted' : 'not_found';
  }
}
