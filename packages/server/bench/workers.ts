// The workers backend of the benchmarks' control planes: every deployment "runs" at `base`, healthy
// at once, and the backend lists the workers it made (an empty list would have the reconciler
// redeploy them mid-benchmark).
import { pageOfNames, type WorkersPort } from '@berth/server';

export function workersAt(name: string, base: string): WorkersPort {
  const made = new Set<string>();
  return {
    name,
    async createWorker(spec) {
      made.add(spec.workerName);
      return { workerUrl: `${base}/agents/${spec.workerName}` };
    },
    async deleteWorker(worker) {
      made.delete(worker);
      return 'deleted';
    },
    async applySettings(worker) {
      return made.has(worker) ? 'applied' : 'not_found';
    },
    async assistantCall() {
      return { status: 404, json: undefined };
    },
    async workerHealth() {
      return { ready: true, failed: false, reason: null };
    },
    async listWorkers(page) {
      return pageOfNames(made, page);
    },
  };
}
