// Metering on the chat proxy. Managed and unlimited replies are booked by the model gateway, so
// here they are only refused early when the allowance cannot cover this request. A byok
// deployment calls its own provider: its reply's `usage` is booked here, against the owner's cap.
import type { Services } from '../services.js';
import { assertCredit, openPeriod, reserve, settle, type Metered, type Reservation } from './allowance.js';
import { costNano, replyCost, reservePricing } from './pricing.js';
import type { UsageScanner } from './usage-scanner.js';

export type ChatMeterDeps = Pick<Services, 'usage' | 'billing' | 'jobs' | 'now' | 'log' | 'catalog' | 'db' | 'events'>;
export type ChatMeter = Metered & { modelId: string; modelProvider: string };

/** `maxTokens` comes from the proxy's one parse of the body (chat-body.ts). Refuses with CREDITS_EXHAUSTED, or holds a byok reservation to settle after the reply. */
export async function admitChat(
  s: ChatMeterDeps,
  m: ChatMeter,
  request: { bytes: number; maxTokens: number },
): Promise<Reservation | undefined> {
  const amount = costNano(
    reservePricing(s.catalog.provider(m.modelProvider), m.modelId),
    Math.ceil(request.bytes / 2),
    request.maxTokens,
  );
  if (m.apiMode !== 'byok') {
    await assertCredit(s, m, amount);
    return undefined;
  }
  // With no cap (the default) there is nothing to hold against: a point read instead of a write
  // on every chat, and only the reply's usage to book. A cap set meanwhile counts from the next
  // chat on (the period row is read each time, so every replica sees it at once).
  const key = await openPeriod(s, m);
  const p = await s.usage.period(key);
  if (p && p.allowanceNano === null) return { key, amountNano: 0, mode: m.apiMode };
  // A byok reply books what the worker's provider reports (history and system prompt included),
  // which its hold cannot know: concurrent chats would each pass the cap by a reply. Capped
  // chats of one assistant take turns in this process, so the cap is passed by at most one
  // reply (one per replica): decision 0029.
  const done = await takeTurn(m.id);
  try {
    return { ...(await reserve(s, m, amount)), done };
  } catch (err) {
    done();
    throw err;
  }
}

/** The tail of each capped assistant's queue of chats in this process. */
const turns = new Map<string, Promise<void>>();

async function takeTurn(id: string): Promise<() => void> {
  const before = turns.get(id) ?? Promise.resolve();
  let finish!: () => void;
  const mine = new Promise<void>((r) => {
    finish = r;
  });
  const tail = before.then(() => mine);
  turns.set(id, tail);
  await before;
  let finished = false;
  return () => {
    if (finished) return;
    finished = true;
    finish();
    if (turns.get(id) === tail) turns.delete(id);
  };
}

export async function settleChat(s: ChatMeterDeps, r: Reservation, m: ChatMeter, scanner: UsageScanner): Promise<void> {
  try {
    await book(s, r, m, scanner);
  } finally {
    r.done?.();
  }
}

async function book(s: ChatMeterDeps, r: Reservation, m: ChatMeter, scanner: UsageScanner): Promise<void> {
  const usage = scanner.end();
  const entry = usage
    ? {
        source: 'proxy' as const,
        model: m.modelId,
        ...replyCost(s.catalog.provider(m.modelProvider), m.modelId, usage),
      }
    : undefined;
  // An uncapped chat held nothing: with no usage reported either, there is nothing to write.
  if (r.amountNano === 0 && !entry) return;
  await settle(s, r, entry);
}
