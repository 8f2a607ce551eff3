import { AppError } from '../errors/app-error.js';
import { FRAMEWORK_ASSISTANT_AGENT, type Deployment } from '../domain/deployment.js';
import type { Caller, Services } from './context.js';
import { loadOwned } from './load-owned.js';

export function checkFramework(d: Deployment) {
  if (d.framework !== FRAMEWORK_ASSISTANT_AGENT) {
    throw new AppError('UNSUPPORTED_FRAMEWORK', `This deployment runs the "${d.framework}" framework; chat and models are served only for ${FRAMEWORK_ASSISTANT_AGENT} deployments.`);
  }
}

/** Ownership, framework, readiness: what must hold before a chat request may reach the worker. */
export async function resolveChatTarget(s: Services, caller: Caller, id: string) {
  const d = await loadOwned(s, caller, id);
  checkFramework(d);
  if (d.status !== 'active' || !d.workerUrl || !d.gatewayTokenEnc) {
    throw new AppError('ASSISTANT_NOT_READY', `The assistant is ${d.status}${d.status === 'active' ? ' but its worker is not provisioned yet' : ''}; chat needs an active deployment. Poll GET /api/v1/assistants/${d.id}/status.`, { status: d.status });
  }
  return { deployment: d, workerUrl: d.workerUrl, gatewayToken: s.secrets.open(d.gatewayTokenEnc) };
}

export async function listModels(s: Services, caller: Caller, id: string) {
  const d = await loadOwned(s, caller, id);
  checkFramework(d);
  return {
    object: 'list' as const,
    data: [{ id: 'assistant-agent', object: 'model' as const, owned_by: d.modelProvider || 'berth', created: Math.floor(Date.parse(d.createdAt) / 1000) }],
  };
}
