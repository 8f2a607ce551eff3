// The shared placement: assistants live in agent hosts (a StatefulSet), up to `capacity` per host.
// The control plane picks the host, records it in the store (so every replica agrees), and adds
// the assistant through that host's admin API. A placement on a host that no longer exists (the
// StatefulSet was scaled down) is moved to a live host on the next createWorker, which the
// reconciler calls for every assistant that listWorkers no longer reports.
import { randomBytes } from 'node:crypto';
import type { V1Secret, V1StatefulSet } from '@kubernetes/client-node';
import type { AssistantSettings } from '@berth/contracts/settings';
import { WorkerUpstreamError, type AssistantMethod, type WorkerHealth, type WorkerSpec } from '../port.js';
import type { WorkerPlacementRepo } from '../../platform/store/worker-placements.js';
import type { KubeApi } from './api.js';
import { agentHostMount } from '../agent-host-mount.js';
import { agentCall, healthOf, namesOf, refusal, settingsApplied, WATCH_CALL_MS } from '../agent-client.js';
import { troublesOf } from '../troubles.js';
import { AGENT_PORT, type ManifestContext } from './manifests/context.js';
import { AGENT_HOST, agentHostDns, agentHostManifests, agentHostSecret } from './manifests/agent-host.js';
import type { UrlFor } from './dedicated.js';

const HOST_SET = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: AGENT_HOST } as const;
const HOST_SERVICE = { apiVersion: 'v1', kind: 'Service', name: AGENT_HOST } as const;
const HOST_SECRET = { apiVersion: 'v1', kind: 'Secret', name: AGENT_HOST } as const;

/** The least-loaded live host with room, or a new one. Pure, so the rule is tested on its own. */
export function pickHost(load: ReadonlyMap<number, number>, hosts: number, capacity: number): number {
  let best = -1;
  for (let i = 0; i < hosts; i++) {
    const n = load.get(i) ?? 0;
    if (n < capacity && (best < 0 || n < (load.get(best) ?? 0))) best = i;
  }
  return best >= 0 ? best : hosts;
}

export class SharedWorkers {
  private token: string | undefined;

  constructor(
    private readonly api: KubeApi,
    private readonly ctx: ManifestContext,
    private readonly placements: WorkerPlacementRepo,
    private readonly urlFor: UrlFor,
    private readonly capacity: number,
    private readonly now: () => Date,
  ) {}

  private hostUrl(ordinal: number) {
    return this.urlFor(agentHostDns(this.ctx, ordinal), AGENT_PORT);
  }

  private async adminToken(): Promise<string> {
    if (this.token) return this.token;
    // Created once and never overwritten: every replica reads the same token back.
    const secret = await this.api.createOrGet<V1Secret>(
      agentHostSecret(this.ctx, randomBytes(32).toString('base64url')),
    );
    const b64 = secret.data?.['admin-token'];
    if (!b64) throw new WorkerUpstreamError(503, `the Secret ${AGENT_HOST} has no admin-token`);
    this.token = Buffer.from(b64, 'base64').toString('utf8');
    return this.token;
  }

  private async existingToken(): Promise<string | undefined> {
    if (this.token) return this.token;
    const b64 = (await this.api.read<V1Secret>(HOST_SECRET))?.data?.['admin-token'];
    if (b64) this.token = Buffer.from(b64, 'base64').toString('utf8');
    return this.token;
  }

  private async hosts(): Promise<number> {
    const set = await this.api.read<V1StatefulSet>(HOST_SET);
    return set?.spec?.replicas ?? 0;
  }

  async create(spec: WorkerSpec): Promise<{ workerUrl: string }> {
    const name = spec.workerName;
    const token = await this.adminToken();
    const [current, hosts, load] = await Promise.all([
      this.placements.hostOf(name),
      this.hosts(),
      this.placements.load(),
    ]);
    if (current !== undefined) load.set(current, (load.get(current) ?? 1) - 1);
    const host = current !== undefined && current < hosts ? current : pickHost(load, hosts, this.capacity);
    const m = agentHostManifests(this.ctx, Math.max(hosts, host + 1));
    await this.api.apply(m.service);
    await this.api.apply(m.statefulSet);
    await this.placements.place(name, host, this.now());
    const res = await agentCall(`${this.hostUrl(host)}/agents/${name}`, 'PUT', {
      token,
      body: agentHostMount(spec, this.ctx.telegramApiRoot, this.ctx.telegramWebhook),
    });
    if (res.status !== 200) {
      // No agent answered yet (the host pod is starting): 503, which the deploy job retries.
      const status = res.json?.error ? res.status : 503;
      throw new WorkerUpstreamError(status, res.json?.error?.message ?? `agent host ${host} is not ready yet`);
    }
    return { workerUrl: `${this.hostUrl(host)}/agents/${name}` };
  }

  /** undefined: this placement does not hold the worker. */
  async applySettings(name: string, settings: AssistantSettings): Promise<'applied' | 'not_found' | undefined> {
    const host = await this.placements.hostOf(name);
    if (host === undefined) return undefined;
    const token = await this.adminToken();
    const res = await agentCall(`${this.hostUrl(host)}/agents/${name}/settings`, 'PUT', { token, body: settings });
    return settingsApplied(res, `agent host ${host}`);
  }

  /** undefined: this placement does not hold the worker. */
  async assistantCall(name: string, method: AssistantMethod, path: string, body?: unknown) {
    const host = await this.placements.hostOf(name);
    if (host === undefined) return undefined;
    return agentCall(`${this.hostUrl(host)}/agents/${name}${path}`, method, { token: await this.adminToken(), body });
  }

  async health(name: string): Promise<WorkerHealth | undefined> {
    const host = await this.placements.hostOf(name);
    if (host === undefined) return undefined;
    const res = await agentCall(`${this.hostUrl(host)}/agents/${name}/health`, 'GET').catch(() => undefined);
    if (res?.status === 404 && res.json?.error)
      return { ready: false, failed: false, reason: 'the worker is not running' };
    return (res && healthOf(res)) ?? { ready: false, failed: false, reason: `agent host ${host} is not ready` };
  }

  /**
   * The assistants that run on a live host but are not well, with their reasons: each host's GET
   * /troubles (a short list, whatever the host holds), all hosts at once. A host that does not
   * answer names nothing this time: the health watch asks again at its next check. No host, no
   * call. The token is read, never made: a look that raced the removal of the last host would
   * otherwise leave a Secret behind it.
   */
  async troubles(into: Map<string, string>): Promise<void> {
    const hosts = await this.hosts();
    if (hosts === 0) return;
    const token = await this.existingToken();
    if (!token) return;
    await Promise.all(
      Array.from({ length: hosts }, async (_, host) => {
        const res = await agentCall(`${this.hostUrl(host)}/troubles`, 'GET', { token, timeoutMs: WATCH_CALL_MS }).catch(
          () => undefined,
        );
        if (res?.status === 200) troublesOf(res.json, into);
      }),
    );
  }

  /**
   * The assistant leaves its host (it moves to the dedicated placement): the host stops it and
   * answers its users' data (0024, "Moving an assistant"). undefined: no live host holds it.
   * Asked again (a retried move), the host answers the same export.
   */
  async handover(name: string): Promise<unknown> {
    const host = await this.placements.hostOf(name);
    if (host === undefined || host >= (await this.hosts())) return undefined;
    const res = await agentCall(`${this.hostUrl(host)}/agents/${name}/handover`, 'POST', {
      token: await this.adminToken(),
    });
    if (res.status !== 200) throw refusal(res, `agent host ${host}`);
    return res.json;
  }

  /** Hands a moved assistant's data to its new host (once per export; a retry is a no-op there). */
  async importUserData(name: string, data: unknown): Promise<void> {
    const host = await this.placements.hostOf(name);
    if (host === undefined) throw new WorkerUpstreamError(503, `no agent host holds ${name} yet`);
    const res = await agentCall(`${this.hostUrl(host)}/agents/${name}/user-data`, 'PUT', {
      token: await this.adminToken(),
      body: data,
    });
    if (res.status !== 200) throw refusal(res, `agent host ${host}`);
  }

  /** undefined: this placement never held the worker. */
  async remove(name: string, purge: boolean): Promise<boolean | undefined> {
    const host = await this.placements.hostOf(name);
    if (host === undefined) return undefined;
    let removed = false;
    const hosts = await this.hosts();
    if (host < hosts) {
      const token = await this.adminToken();
      const res = await agentCall(`${this.hostUrl(host)}/agents/${name}${purge ? '?purge=true' : ''}`, 'DELETE', {
        token,
      }).catch((err) => {
        // A host that cannot be reached holds nothing we could remove; its restart starts empty.
        if ((err as WorkerUpstreamError).status === 503) return undefined;
        throw err;
      });
      if (res && res.status !== 200 && res.status !== 404 && res.json?.error)
        throw new WorkerUpstreamError(res.status, `agent host ${host} answered ${res.status}`);
      removed = res?.status === 200;
    }
    await this.placements.remove(name);
    if ((await this.placements.load()).size === 0) await this.removeHosts();
    return removed;
  }

  /** With no assistant left, the hosts go too: nothing of Berth's stays in the namespace. */
  private async removeHosts() {
    await this.api.remove(HOST_SET);
    await this.api.remove(HOST_SERVICE);
    await this.api.remove(HOST_SECRET);
    this.token = undefined;
  }

  /**
   * One page of what one live host actually runs (a restarted host reports nothing until
   * re-filled; one that does not answer, nothing), and how many hosts there are (`known`: as read
   * at an earlier page of the same walk, so a walk reads the StatefulSet once, not once a page).
   */
  async namesPage(host: number, page: { limit: number; after?: string }, known?: number) {
    const hosts = known ?? (await this.hosts());
    if (host >= hosts) return { names: [], hosts };
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (page.after !== undefined) query.set('after', page.after);
    const token = await this.adminToken();
    const res = await agentCall(`${this.hostUrl(host)}/agents?${query}`, 'GET', { token }).catch(() => undefined);
    const ok = res?.status === 200;
    // Mid-walk, a page that fails must stop the pass: the rest of this host's list would look
    // vanished and be redeployed. (A host that fails at its first page reports nothing, as before.)
    if (!ok && page.after !== undefined)
      throw new WorkerUpstreamError(res?.status, `shared host ${host} did not answer its worker list`);
    const { names, next } = namesOf(ok ? res.json : undefined);
    return { names, next, hosts };
  }
}
