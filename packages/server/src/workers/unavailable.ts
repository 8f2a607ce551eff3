// Stands in for a backend that this build does not have: every deploy fails with a reason a
// person can act on, and deletion finds nothing to delete.
import type { WorkersPort } from './port.js';

export function createUnavailableWorkers(backend: string): WorkersPort {
  const reason = `The "${backend}" worker backend is not available in this build of Berth; set WORKER_BACKEND=local.`;
  return {
    name: `${backend} (unavailable)`,
    async createWorker() { throw new Error(reason); },
    async deleteWorker() { return 'not_found'; },
    async workerHealth() { return { ready: false, failed: true, reason }; },
    async listWorkers() { return []; },
  };
}
