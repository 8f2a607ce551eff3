// The stored responses GET /responses/{id} answers from: the last RESPONSES_KEPT of each
// deployment, in this process's memory. The conversation itself is the worker's (its API session,
// ids.ts); this keeps only the answers, so a restart or another replica forgets them and GET says
// 404 (docs/decisions/0032-responses-api.md).
import type { ResponseView } from './translate-answer.js';

export const RESPONSES_KEPT = 100;
/** Deployments with kept responses; past this the oldest deployment's are dropped. */
const DEPLOYMENTS_KEPT = 10_000;

export class ResponseLog {
  // Maps keep insertion order: the first key is the oldest.
  private readonly byDeployment = new Map<string, Map<string, ResponseView>>();

  constructor(private readonly perDeployment = RESPONSES_KEPT) {}

  keep(deploymentId: string, r: ResponseView): void {
    const id = deploymentId.toLowerCase();
    let kept = this.byDeployment.get(id);
    if (!kept) {
      if (this.byDeployment.size >= DEPLOYMENTS_KEPT) this.byDeployment.delete(this.byDeployment.keys().next().value!);
      kept = new Map();
      this.byDeployment.set(id, kept);
    }
    kept.set(r.id, r);
    if (kept.size > this.perDeployment) kept.delete(kept.keys().next().value!);
  }

  find(deploymentId: string, responseId: string): ResponseView | undefined {
    return this.byDeployment.get(deploymentId.toLowerCase())?.get(responseId);
  }
}
