import { AppError } from '../platform/errors/app-error.js';
import type { Deployment } from '../domain/deployment.js';
import { assertCaller, ownerOf, type Caller, type Services } from '../services.js';

/** The spec hides pending-payment slots older than one hour: abandoned checkouts. */
export const PENDING_VISIBLE_MS = 60 * 60 * 1000;

export const DEFAULT_PAGE_LIMIT = 50;

const pendingCutoff = (s: Pick<Services, 'now'>) => new Date(s.now().getTime() - PENDING_VISIBLE_MS).toISOString();

export function listDeployments(s: Pick<Services, 'deployments' | 'now'>, caller: Caller) {
  assertCaller(caller);
  return s.deployments.listVisible(ownerOf(caller), pendingCutoff(s));
}

/** The cursor is opaque to clients: the last row's sort key, base64url-encoded. */
export function encodeCursor(d: Pick<Deployment, 'createdAt' | 'id'>): string {
  return Buffer.from(JSON.stringify([d.createdAt, d.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string')
      return { createdAt: v[0], id: v[1] };
  } catch {
    /* not ours */
  }
  throw new AppError('INVALID_REQUEST', 'The cursor is not one this server returned; start again without it.');
}

/** One page of the list (newest first) and the cursor of the next one, null after the last. */
export async function listDeploymentsPage(
  s: Pick<Services, 'deployments' | 'now'>,
  caller: Caller,
  q: { limit?: number; cursor?: string },
): Promise<{ items: Deployment[]; nextCursor: string | null }> {
  assertCaller(caller);
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  // One row more than asked tells whether another page follows.
  const rows = await s.deployments.listVisible(ownerOf(caller), pendingCutoff(s), { limit: limit + 1, after });
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? encodeCursor(items.at(-1)!) : null };
}
