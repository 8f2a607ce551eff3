// The operator's view and hand (admin deployments list|suspend|resume, admin usage, admin users
// list). Suspension is a desired state: the state machine (domain/lifecycle.ts) decides it, this
// writes it, and the reconciler of every running server removes the worker because the
// deployment no longer wants one; the owner's redeploy and update answer 409 until resume.
import { randomToken } from '../platform/crypto/tokens.js';
import { decideOperatorAction } from '../domain/lifecycle.js';
import { AppError } from '../platform/errors/app-error.js';
import { lifecycleStateOf, patchFor, saveDeployment, type SaveDeps } from '../deployments/index.js';
import type { Repos } from '../platform/store/repos.js';
import type { Services } from '../services.js';

export type OperatorDeps = SaveDeps & Pick<Services, 'deployments' | 'secrets'>;

export const listDeploymentsForOperator = (d: Pick<Repos, 'operatorViews'>, status?: string) =>
  d.operatorViews.deployments(status);

async function act(d: OperatorDeps, id: string, action: Parameters<typeof decideOperatorAction>[0]) {
  const dep = await d.deployments.findById(id);
  if (!dep) throw new AppError('NOT_FOUND', `No deployment ${id}.`);
  const res = decideOperatorAction(action, lifecycleStateOf(dep));
  if (!res.ok) throw new AppError('INVALID_STATE', res.reason);
  const c = res.change!;
  const starts = c.status === 'deploying';
  return saveDeployment(
    d,
    dep,
    {
      ...patchFor(c),
      // As a redeploy: a fresh gateway token for the new worker.
      ...(starts ? { statusMessage: 'Deploying the worker.', gatewayTokenEnc: d.secrets.seal(randomToken(48)) } : {}),
    },
    { bumpGeneration: c.bumpGeneration, deploy: starts },
  );
}

export function suspendDeployment(d: OperatorDeps, id: string, reason: string) {
  const r = reason.trim();
  if (!r || r.length > 400)
    throw new AppError('INVALID_REQUEST', 'A reason (1-400 characters) is required: --reason R.');
  return act(d, id, { kind: 'suspend', reason: r });
}

export function resumeDeployment(d: OperatorDeps, id: string) {
  return act(d, id, { kind: 'resume' });
}

/** Cost, replies and tokens per deployment and owner for a calendar month (UTC), default this one. */
export async function usageReport(d: Pick<Repos, 'operatorViews'> & Pick<Services, 'now'>, month?: string) {
  const m = month ?? d.now().toISOString().slice(0, 7);
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(m);
  if (!match) throw new AppError('INVALID_REQUEST', `--month takes YYYY-MM, got "${m}".`);
  const y = Number(match[1]);
  const mo = Number(match[2]);
  const next = mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`;
  const rows = await d.operatorViews.usageBetween(`${m}-01`, `${next}-01`);
  const perOwner = new Map<string, { ownerEmail: string; replies: number; costUsd: number; tokens: number }>();
  for (const r of rows) {
    const o = perOwner.get(r.ownerEmail) ?? { ownerEmail: r.ownerEmail, replies: 0, costUsd: 0, tokens: 0 };
    o.replies += r.replies;
    o.costUsd += r.costNano / 1e9;
    o.tokens += r.promptTokens + r.completionTokens;
    perOwner.set(r.ownerEmail, o);
  }
  return {
    month: m,
    deployments: rows.map(({ costNano, ...r }) => ({ ...r, costUsd: costNano / 1e9 })),
    owners: [...perOwner.values()],
  };
}

export const listUsersForOperator = (d: Pick<Repos, 'operatorViews'>) => d.operatorViews.usersWithCounts();
