// Hurries the outbox (the jobs table): a job waiting for its retry is made due now and the runner
// woken, instead of a test waiting out the back-off (seconds to minutes).
import type { Runtime } from '../../src/index.js';

/** Makes every pending job (of `kind`, if given) due now and nudges the runner; does not wait for them. */
export async function makePendingJobsDue(runtime: Runtime, kind?: string): Promise<void> {
  let pending = runtime.store.db
    .updateTable('jobs')
    .set({ run_at: new Date(0).toISOString() })
    .where('status', '=', 'pending');
  if (kind) pending = pending.where('kind', '=', kind);
  await pending.execute();
  runtime.runner.nudge();
}
