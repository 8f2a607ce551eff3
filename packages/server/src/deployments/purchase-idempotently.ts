// Purchase with a client Idempotency-Key: a retry with the same body gets the same slot and
// checkout URL; the same key with another body is refused. Keys live 24 hours per user.
import { AppError } from '../platform/errors/app-error.js';
import { sha256Hex } from '../platform/crypto/tokens.js';
import { assertCaller, type Caller, type Services } from '../services.js';
import { type PurchaseDeps, purchaseSlot } from './purchase-slot.js';
import type { IdempotencyRepo } from '../platform/store/idempotency-keys.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
type Result = Awaited<ReturnType<typeof purchaseSlot>>;

export async function purchaseIdempotently(
  s: PurchaseDeps & Pick<Services, 'idempotencyKeys'>,
  caller: Caller,
  input: Parameters<typeof purchaseSlot>[2],
  key: string | undefined,
): Promise<{ result: Result; replayed: boolean }> {
  assertCaller(caller);
  if (key === undefined) return { result: await purchaseSlot(s, caller, input), replayed: false };
  // The owner is part of the request: one key reused as a person and as an organization is refused.
  const hash = sha256Hex(JSON.stringify({ apiMode: input.apiMode, organizationId: caller.organizationId }));
  const now = s.now();
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString();
  const keys = s.idempotencyKeys;
  if (!(await keys.claim(caller.userId, key, hash, now.toISOString(), cutoff)))
    return { result: await earlier(keys, caller, key, hash), replayed: true };
  try {
    const result = await purchaseSlot(s, caller, input);
    await keys.answer(caller.userId, key, JSON.stringify(result));
    return { result, replayed: false };
  } catch (err) {
    // A failed purchase did not happen: the key may be used again.
    await keys.release(caller.userId, key);
    throw err;
  }
}

/** The first request's answer; waits a little if that request is still running. */
async function earlier(keys: IdempotencyRepo, caller: Caller, key: string, hash: string): Promise<Result> {
  for (let i = 0; i < 100; i++) {
    const row = await keys.find(caller.userId, key);
    if (!row) break;
    if (row.requestHash !== hash) {
      throw new AppError(
        'INVALID_REQUEST',
        'This Idempotency-Key was already used with a different request body; use a new key for a different purchase.',
      );
    }
    if (row.response) return JSON.parse(row.response) as Result;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new AppError(
    'INVALID_REQUEST',
    'A purchase with this Idempotency-Key is still in progress or failed; retry in a moment.',
  );
}
