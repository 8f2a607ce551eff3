// On the local backend every replica runs its own agent host, and the reconciler's pass (one
// replica at a time, by lease) lists only the leader's host. So every replica, every interval,
// removes from its own host the workers no record wants: a deployment deleted or stopped through
// another replica. Without this a delete served elsewhere left the bot polling Telegram (and
// spending) until this replica restarted. (A worker the records want stays, even when the record
// names another replica's host: removing it would make the leader's pass see it vanish and restart
// it, a status flap, for a copy that a stop or delete now removes everywhere anyway.)
import { wantsWorker } from '../domain/lifecycle.js';
import type { Services } from '../services.js';
import { setImmediate } from 'node:timers/promises';
import { deletedForGood } from './deleted-for-good.js';
import { workerPages } from '../workers/index.js';

export async function pruneOwnHost(
  s: Pick<Services, 'deployments' | 'tombstones' | 'workers' | 'log'>,
): Promise<number> {
  if (!s.workers.perReplica) return 0;
  let removed = 0;
  // A page of the host at a time, and between pages the event loop is free (issue 30).
  for await (const listed of workerPages(s.workers)) {
    if (listed.length) removed += await prunePage(s, listed);
    await setImmediate();
  }
  return removed;
}

async function prunePage(
  s: Pick<Services, 'deployments' | 'tombstones' | 'workers' | 'log'>,
  listed: string[],
): Promise<number> {
  // Only this host's workers are looked up (not every wanted deployment): a pass stays as cheap as
  // the host is small, whatever the size of the store (issue 30).
  const idOf = (name: string) => name.replace(/^asst-/, '');
  const wanted = await s.deployments.wantingAmong(listed.map(idOf));
  let removed = 0;
  for (const name of listed) {
    if (wanted.has(idOf(name))) continue;
    // Read again: a deploy may have started (and created this worker) after the list was taken.
    const d = await s.deployments.findById(idOf(name));
    if (d && wantsWorker(d.desired)) continue;
    try {
      // A deleted deployment's data is purged from this host too; a stopped one's stays, and so
      // does one whose record is missing without a tombstone (deleted-for-good.ts).
      const purge = !d && (await deletedForGood(s, idOf(name)));
      await s.workers.deleteWorker(name, { purge });
      removed++;
      s.log.info({ worker: name }, 'removed a worker no record wants from this host');
    } catch (err) {
      s.log.warn({ worker: name, err: (err as Error).message }, 'removing a stray worker of this host failed');
    }
  }
  return removed;
}
