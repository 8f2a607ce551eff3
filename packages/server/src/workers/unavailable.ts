// Stands in for a backend that this build does not have yet: every deploy fails with a reason a
// person can act on, and deletion finds nothing to delete.
import type { WorkersPort } from './port.js';

export function createUnavailableWorkers(backend: string): WorkersPort {
  return {
    name: `${backend} (unavailable)`,
    async createWorker() {
      throw new Error(`The "${backend}" worker backend is not available in this build of Berth; set WORKER_BACKEND to a supported backend.`);
    },
    async deleteWorker() {
      return 'not_found';
    },
  };
}
