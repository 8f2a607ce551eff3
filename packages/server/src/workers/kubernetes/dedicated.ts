// The dedicated placement: one Deployment + Service + Secret per assistant.
import type { V1Deployment, V1Pod, V1Secret } from '@kubernetes/client-node';
import type { AssistantSettings } from '@berth/contracts/settings';
import type { McpServerList } from '@berth/contracts/mcp';
import { channelsEnv, MOUNT_ENV, mcpServersEnv, type ChannelSpec, type MountEnvVar } from '@berth/contracts/worker';
import { WorkerUpstreamError, type AssistantMethod, type WorkerHealth, type WorkerSpec } from '../port.js';
import type { KubeApi, Ref } from './api.js';
import { agentCall, healthOf, refusal, settingsApplied, WATCH_CALL_MS } from '../agent-client.js';
import { AGENT_PORT, type ManifestContext } from './manifests/context.js';
import { containerEnv, dataClaimName, dedicatedWorkerManifests } from './manifests/dedicated-worker.js';
import { WORKER, selectorFor } from './manifests/labels.js';

export type UrlFor = (host: string, port: number) => string;

const KINDS = [
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
  { apiVersion: 'v1', kind: 'Service', plural: 'services' },
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' },
] as const;

/** The live lists' variables, last in a pod's environment in this order; every other one first (-1). */
const LIVE_ORDER: string[] = [MOUNT_ENV.mcpServers, MOUNT_ENV.channels];

/** Pods whose health one look at the dedicated workers asks at once. */
const HEALTH_AT_ONCE = 16;
/** Deployments a page of that look lists (metadata only, as a pass's walk does). */
const TROUBLE_PAGE = 100;

/** The kinds a list of dedicated workers walks, in turn. */
export const LISTED = KINDS.filter((x) => x.kind !== 'Secret');

export class DedicatedWorkers {
  constructor(
    private readonly api: KubeApi,
    private readonly ctx: ManifestContext,
    private readonly urlFor: UrlFor,
  ) {}

  url(name: string) {
    return this.urlFor(`${name}.${this.ctx.namespace}.svc`, AGENT_PORT);
  }

  async create(spec: WorkerSpec): Promise<{ workerUrl: string }> {
    const m = dedicatedWorkerManifests(spec, this.ctx);
    // The Secret first: the pods the Deployment makes refer to it.
    await this.api.apply(m.secret);
    // Created once and never re-applied: a bound claim's spec cannot change, and a redeploy keeps it.
    await this.api.createOrGet(m.claim);
    await this.api.apply(m.service);
    await this.api.apply(m.deployment);
    return { workerUrl: this.url(spec.workerName) };
  }

  /**
   * The Secret keeps the newest settings for the pod's next start; the running pod takes them in
   * place through its own PUT /settings, authorised by the gateway token the Secret holds.
   */
  async applySettings(name: string, settings: AssistantSettings): Promise<'applied' | 'not_found'> {
    const secret = await this.api.read<V1Secret>({ apiVersion: 'v1', kind: 'Secret', name });
    const gatewayB64 = secret?.data?.['gateway-token'];
    if (!secret || !gatewayB64) return 'not_found';
    await this.api.apply<V1Secret>({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: this.ctx.namespace, labels: secret.metadata?.labels },
      type: 'Opaque',
      data: { ...secret.data, settings: Buffer.from(JSON.stringify(settings)).toString('base64') },
    });
    const res = await agentCall(`${this.url(name)}/settings`, 'PUT', {
      token: Buffer.from(gatewayB64, 'base64').toString('utf8'),
      body: settings,
    });
    return settingsApplied(res, 'the worker');
  }

  async assistantCall(name: string, method: AssistantMethod, path: string, body?: unknown) {
    const token = await this.gatewayToken(name);
    if (!token) return { status: 404, json: undefined };
    // What the running pod takes live is also kept for its next start.
    if (method === 'PUT' && path === '/mcp-servers') await this.keepLive(name, mcpServersEnv(body as McpServerList));
    if (method === 'PUT' && path === '/channels') await this.keepLive(name, channelsEnv(body as ChannelSpec[]));
    return agentCall(`${this.url(name)}${path}`, method, { token, body });
  }

  /**
   * A list the running pod takes live (its MCP servers, its channels beside Telegram), kept in its
   * Secret for its next start (as settings are). A pod whose Deployment does not read that key yet
   * (deployed without any) gets the reference added: that rolls it once, and the new pod starts
   * with the list. Removing the last one keeps the reference (an empty list), so it never rolls back.
   */
  private async keepLive(name: string, v: Extract<MountEnvVar, { secretKey: string }>): Promise<void> {
    const secret = await this.api.read<V1Secret>({ apiVersion: 'v1', kind: 'Secret', name });
    if (!secret) return;
    await this.api.apply<V1Secret>({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: this.ctx.namespace, labels: secret.metadata?.labels },
      type: 'Opaque',
      data: { ...secret.data, [v.secretKey]: Buffer.from(v.value).toString('base64') },
    });
    if (v.value === '[]') return;
    const dep = await this.api.read<V1Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    const container = dep?.spec?.template.spec?.containers[0];
    if (!dep?.spec || !container || container.env?.some((e) => e.name === v.name)) return;
    // In the order a create of the same spec lists them (mount-env.ts), so a later create does not
    // roll the pod again.
    container.env = [...(container.env ?? []), containerEnv(name, v)].sort(
      (a, b) => LIVE_ORDER.indexOf(a.name) - LIVE_ORDER.indexOf(b.name),
    );
    await this.api.apply<V1Deployment>({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: this.ctx.namespace, labels: dep.metadata?.labels },
      spec: dep.spec,
    });
  }

  /**
   * The assistant leaves its pod (it moves to the shared placement): the pod stops it and answers
   * its users' data (0024, "Moving an assistant"). undefined: no dedicated worker of that name, or
   * one with no pod running (its data went with its pod's volume). A pod that runs but does not
   * answer is a 503: the move is retried rather than losing what the pod holds.
   */
  async handover(name: string): Promise<unknown> {
    const token = await this.gatewayToken(name);
    const dep = await this.api.read<V1Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    if (!token || !dep) return undefined;
    const res = await agentCall(`${this.url(name)}/handover`, 'POST', { token }).catch((err: WorkerUpstreamError) => {
      if ((dep.status?.replicas ?? 0) === 0) return undefined;
      throw err;
    });
    if (!res) return undefined;
    if (res.status !== 200) throw refusal(res, 'the worker');
    return res.json;
  }

  /**
   * Hands a moved assistant's data to its new pod; a 503 while the pod is not up yet (the deploy
   * job retries the whole move, and the old worker answers the same export again).
   */
  async importUserData(name: string, gatewayToken: string, data: unknown): Promise<void> {
    const res = await agentCall(`${this.url(name)}/user-data`, 'PUT', { token: gatewayToken, body: data });
    if (res.status === 200 && res.json?.id) return;
    // Anything but the agent's answer (no endpoint yet, the previous pod) means: not up yet.
    const status = res.json?.error && res.status !== 404 ? res.status : 503;
    throw new WorkerUpstreamError(status, res.json?.error?.message ?? 'moving its data: waiting for the new pod');
  }

  /** A dedicated worker's own admin calls are authorised by its gateway token (in its Secret). */
  private async gatewayToken(name: string): Promise<string | undefined> {
    const secret = await this.api.read<V1Secret>({ apiVersion: 'v1', kind: 'Secret', name });
    const b64 = secret?.data?.['gateway-token'];
    return b64 ? Buffer.from(b64, 'base64').toString('utf8') : undefined;
  }

  async health(name: string): Promise<WorkerHealth> {
    const dep = await this.api.read<V1Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    if (!dep) return { ready: false, failed: false, reason: 'the worker is not running' };
    // Until the controller has seen the newest spec, a pod of the previous one may still answer.
    const rolledOut =
      (dep.status?.observedGeneration ?? 0) >= (dep.metadata?.generation ?? 1) &&
      (dep.status?.updatedReplicas ?? 0) >= 1;
    if (rolledOut) {
      const h = await agentCall(`${this.url(name)}/health`, 'GET').then(healthOf, () => undefined);
      if (h) return h;
    }
    const pods = await this.api.list<V1Pod>('v1', 'Pod', `${selectorFor('worker')},${WORKER}=${name}`);
    const waiting = pods
      .flatMap((p) => p.status?.containerStatuses ?? [])
      .map((c) => c.state?.waiting)
      .find((w) => w?.reason);
    return {
      ready: false,
      failed: false,
      reason: waiting
        ? `the pod is waiting: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ''}`
        : 'waiting for the pod to become ready',
    };
  }

  /**
   * The dedicated workers that run but are not well, with their reasons. A dedicated pod holds one
   * assistant and has no host to list its troubles, so each Deployment's pod is asked its own
   * /health (the `reason` an agent gives: Telegram's refusal, a rejected model key), a few at a
   * time. `known`: the workers' names as the watched set holds them (no list of the API server,
   * issue 30); without it, a page of Deployments after another. A pod that does not answer names
   * nothing this time (its rollout, a restart): the health watch asks again at its next check.
   */
  async troubles(into: Map<string, string>, known?: string[]): Promise<void> {
    if (known) return this.askHealth(known, into);
    let page: { limit: number; continue?: string } = { limit: TROUBLE_PAGE };
    for (;;) {
      const deployments = LISTED.findIndex((k) => k.kind === 'Deployment');
      const { names, continue: more } = await this.namesPage(deployments, page);
      await this.askHealth(names, into);
      if (!more) return;
      page = { limit: TROUBLE_PAGE, continue: more };
    }
  }

  private async askHealth(names: string[], into: Map<string, string>): Promise<void> {
    let next = 0;
    const ask = async () => {
      while (next < names.length) {
        const name = names[next++]!;
        const reply = await agentCall(`${this.url(name)}/health`, 'GET', { timeoutMs: WATCH_CALL_MS }).catch(
          () => undefined,
        );
        const reason = reply && healthOf(reply)?.reason;
        if (reason) into.set(name, reason);
      }
    };
    await Promise.all(Array.from({ length: Math.min(HEALTH_AT_ONCE, names.length) }, ask));
  }

  /** Whether a listed kind's object of this worker exists (what a list would have named). */
  async exists(name: string): Promise<boolean> {
    for (const k of LISTED) if (await this.api.read({ apiVersion: k.apiVersion, kind: k.kind, name })) return true;
    return false;
  }

  /** `purge`: also the data claim (a delete, or its data handed over); a stop keeps it. */
  async remove(name: string, purge = false): Promise<boolean> {
    let found = false;
    for (const k of KINDS)
      found = (await this.api.remove({ apiVersion: k.apiVersion, kind: k.kind, name } satisfies Ref)) || found;
    if (purge)
      found =
        (await this.api.remove({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: dataClaimName(name) })) ||
        found;
    return found;
  }

  /**
   * One page of the worker names that the objects of one listed kind carry (the API server's
   * limit/continue), their metadata only. Not Secrets: the control plane's Role may not list them
   * (a Secret left alone is removed by name).
   */
  async namesPage(kind: number, page: { limit: number; continue?: string }) {
    const k = LISTED[kind]!;
    const res = await this.api.listMetadataPage(k.apiVersion, k.plural, selectorFor('worker'), page);
    const names = res.items.map((o) => o.metadata?.labels?.[WORKER]).filter((n): n is string => Boolean(n));
    return { names, continue: res.continue };
  }
}
