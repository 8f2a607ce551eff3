// berth status <id> [--watch]: the status view once, or polled until the deployment is active
// (exit 0) or failed (exit 5, with its status message).
import type { StatusView } from '../api/client.js';
import { UsageError } from '../config/env.js';
import { EXIT } from '../output/exit-codes.js';
import { printJson, printStatus } from '../output/print.js';
import { startProgress } from '../output/progress.js';
import type { Ctx } from './context.js';

const POLL_MS = 1000;

export async function statusCommand(
  ctx: Ctx,
  id: string | undefined,
  opts: { watch?: boolean; timeout?: string },
): Promise<number> {
  if (!id) throw new UsageError('berth status needs the assistant id: berth status <id> [--watch]');
  const client = ctx.client();
  if (!opts.watch) {
    const view = await client.status(id);
    if (ctx.json) printJson(view);
    else printStatus(view);
    return 0;
  }
  const timeoutS = opts.timeout === undefined ? 900 : Number(opts.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new UsageError('--timeout takes a number of seconds');
  const deadline = Date.now() + timeoutS * 1000;
  const progress = startProgress();
  let view: StatusView;
  try {
    for (;;) {
      view = await client.status(id);
      if (view.status === 'active' || view.status === 'failed') break;
      // Only deploying moves by itself; waiting on any other state would never end.
      if (view.status !== 'deploying') break;
      progress.update(`${view.status}${view.statusMessage ? `: ${view.statusMessage}` : ''}`);
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } catch (err) {
    progress.stop('✗ stopped watching');
    throw err;
  }
  const message = view.statusMessage ? `: ${view.statusMessage}` : '';
  if (view.status === 'active') progress.stop(`✓ active${message}`);
  else if (view.status === 'failed') progress.stop(`✗ failed${message}`);
  else if (view.status === 'deploying')
    progress.stop(`… still deploying after ${timeoutS}s; run berth status ${id} --watch again`);
  else
    progress.stop(
      `✗ ${view.status}${message}: it will not become active by itself; run berth assistants ${view.status === 'purchased' ? 'activate' : 'redeploy'} ${id}`,
    );
  if (ctx.json) printJson(view);
  else printStatus(view);
  if (view.status === 'active') return EXIT.ok;
  return view.status === 'deploying' ? EXIT.failed : EXIT.deployFailed;
}
