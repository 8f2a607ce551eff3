// The workers backend of bench:scale's control plane: an in-process stand-in for an agent host that
// starts empty (like a host after a restart), "creates" a worker in a microtask and lists the
// workers it made. It costs the control plane next to nothing, so what the bench measures is the
// control plane's own work at each store size.
import type { WorkersPort } from '@berth/server';

export function inProcessWorkers(base: string): WorkersPort & { created: () => number } {
  const made = new Set<string>();
  let created = 0;
  return {
    name: 'bench-in-process',
    created: () => created,
    async createWorker(spec) {
      made.add(spec.workerName);
      created++;
      return { workerUrl: `${base}/agents/${spec.workerName}` };
    },
    async deleteWorker(worker) {
      return made.delete(worker) ? 'deleted' : 'not_found';
    },
    async workerHealth() {
      return { ready: true, failed: false, reason: null };
    },
    async listWorkers() {
      return [...made];
    },
    async applySettings(worker) {
      return made.has(worker) ? 'applied' : 'not_found';
    },
    async assistantCall() {
      return { status: 404, json: undefined };
    },
  };
}
