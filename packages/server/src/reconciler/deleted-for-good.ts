// Whether a worker with no deployment row belongs to an assistant its owner deleted: only then are
// its users' data purged with it. A missing row alone is no proof: a database restored from an
// older backup, or DATABASE_URL pointed at the wrong or an empty database, would make every worker
// look orphaned, and purging would delete every user's memory and reminders for good. A delete
// writes a tombstone (delete-deployment.ts), kept while any worker of it is still listed.
import type { Services } from '../services.js';

export async function deletedForGood(s: Pick<Services, 'tombstones'>, deploymentId: string): Promise<boolean> {
  return (await s.tombstones.find({ deploymentId })) !== undefined;
}
