// The deploy job: create the worker, wait until its health says ready (Telegram accepted the
// token), then `active`; an error or the deadline makes it `failed` with a reason a person can act
// on. Every write is guarded by the job's generation, so a stop or redeploy that came meanwhile wins.
import type { Deployment } from '../domain/deployment.js';
import type { WorkerSpec } from '../workers/port.js';
import type { Job } from '../jobs/queue.js';
import type { JobContext, JobOutcome } from '../jobs/runner.js';
import type { Services } from './context.js';
import { saveDeployment } from './save-deployment.js';

export function buildWorkerSpec(s: Services, d: Deployment): WorkerSpec {
  const provider = s.catalog.provider(d.modelProvider);
  if (!provider) throw new Error(`Model provider "${d.modelProvider}" is no longer in the server's model catalog; update the deployment.`);
  if (!d.botTokenEnc || !d.gatewayTokenEnc) throw new Error('The deployment has no bot token; update it and redeploy.');
  // Managed and unlimited workers reach the router only through the metering gateway, with a
  // credential for this deployment alone; the operator's router key never leaves the control plane.
  const managed = d.apiMode !== 'byok';
  const apiKey = managed ? s.billing.credentials.issue(d.id) : d.modelApiKeyEnc ? s.secrets.open(d.modelApiKeyEnc) : undefined;
  if (managed && !s.managedProviderApiKey) {
    throw new Error('The operator has not configured MANAGED_PROVIDER_API_KEY; managed deployments cannot reach the model router.');
  }
  if (!apiKey) {
    throw new Error(d.apiMode === 'byok'
      ? 'The deployment has no model API key; update it and redeploy.'
      : 'The operator has not configured MANAGED_PROVIDER_API_KEY; managed deployments cannot reach the model router.');
  }
  return {
    workerName: d.workerName,
    deploymentId: d.id,
    framework: d.framework,
    channel: 'telegram',
    botToken: s.secrets.open(d.botTokenEnc),
    model: { provider: provider.id, baseUrl: managed ? s.billing.gatewayUrl() : provider.baseUrl, modelId: d.modelId, apiKey },
    gatewayToken: s.secrets.open(d.gatewayTokenEnc),
  };
}

const POLL_MS = 250;

export async function runDeployJob(s: Services, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const current = async () => {
    const d = await s.deployments.findById(job.deploymentId!);
    return d && d.generation === job.generation && d.status === 'deploying' ? d : undefined;
  };
  let d = await current();
  if (!d) return { done: true }; // superseded by a stop, redeploy or delete
  const deadline = Date.parse(job.payload.deadline ?? '') || s.now().getTime() + s.deployTimeoutMs;
  const fail = async (reason: string) => {
    s.log.warn({ deploymentId: d!.id, reason }, 'deploy failed');
    await saveDeployment(s, d!, { status: 'failed', statusMessage: `Deploy failed: ${reason}`, workerUrl: null }, { quiet: true });
    return { done: true } as const;
  };
  let workerUrl: string;
  try {
    ({ workerUrl } = await s.workers.createWorker(buildWorkerSpec(s, d)));
  } catch (err) {
    if (s.now().getTime() < deadline && isTransient(err)) {
      return { retryAt: new Date(s.now().getTime() + 2000), error: (err as Error).message };
    }
    return fail((err as Error).message);
  }
  let reason = 'the worker did not report ready';
  let lastBeat = Date.now();
  for (;;) {
    const health = await s.workers.workerHealth(d.workerName).catch((err) => ({ ready: false, failed: false, reason: (err as Error).message }));
    if (health.ready) break;
    if (health.reason) reason = health.reason;
    if (health.failed) return fail(reason);
    if (s.now().getTime() >= deadline) return fail(`the worker was not ready within ${Math.round(s.deployTimeoutMs / 1000)} s (${reason}).`);
    // Shutting down: give the job back so this or another replica picks it up again.
    if (ctx.signal.aborted) return { retryAt: s.now(), error: 'the control plane stopped while waiting for the worker' };
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (Date.now() - lastBeat > 5000) {
      lastBeat = Date.now();
      await ctx.heartbeat();
      d = await current();
      if (!d) return { done: true };
    }
  }
  const saved = await saveDeployment(s, d, { status: 'active', statusMessage: null, workerUrl }, { quiet: true });
  if (!saved) s.log.info({ deploymentId: d.id }, 'deploy superseded by a newer change');
  return { done: true };
}

function isTransient(err: unknown): boolean {
  const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || (err as { status?: number }).status === 503;
}
