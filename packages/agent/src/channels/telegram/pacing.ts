// Outbound pacing within Telegram's limits: one message a second per chat, twenty a minute per
// group, thirty a second per bot (twenty-five calls in a second that holds drafts, the drafts
// counted: issue 64). An API transformer: each paced call takes the first slot all
// three limits allow, reserved at once, so calls to one chat leave in the order they were made.
// Drafts and chat actions are not paced messages; previews ask `preview()` first, which refuses
// intermediate previews beyond a per-bot and a per-host budget (never an answer), and a chat action
// ("typing…", repeated every few seconds anyway) is left out when the bot's second is full.
import type { Transformer } from 'grammy';
import { NotSentError } from '../channel.js';

export interface PacingLimits {
  perChatMs: number;
  perGroupPerMinute: number;
  perBotPerSecond: number;
  /** Bot API calls a second per bot, previews included, past which a preview waits its turn. */
  perBotCallsPerSecond: number;
}

export const TELEGRAM_PACING: PacingLimits = {
  perChatMs: 1000,
  perGroupPerMinute: 20,
  perBotPerSecond: 30,
  perBotCallsPerSecond: 25,
};

/**
 * Intermediate previews a second across the host (issue 64): 1,000 chats streaming at once made a
 * draft every 300 ms each, a third of the host's CPU. Beyond this a chat's preview is refreshed
 * less often; its first preview and its answer are never held back by it.
 */
export const HOST_PREVIEWS_PER_SECOND = 400;

/** The host's preview budget: one sliding second, shared by every bot of the process. */
export class PreviewBudget {
  private readonly slots: number[] = [];
  constructor(readonly perSecond = HOST_PREVIEWS_PER_SECOND) {}
  take(now: number): boolean {
    while (this.slots.length && this.slots[0]! <= now - 1000) this.slots.shift();
    if (this.slots.length >= this.perSecond) return false;
    this.slots.push(now);
    return true;
  }
}

const hostPreviews = new PreviewBudget();

interface LastCall {
  answer: Promise<void>;
  answeredAt?: number;
}

/**
 * A draft or chat action in the bot's second: it counts until `until`, a second after its approval
 * until it is sent, then a second after Telegram answered it (Infinity while on the wire). Telegram counts a
 * call when it arrives, at or before its answer; counting it from its approval only let a call that
 * left late share its arrival second with calls approved a second after it: 33 calls in one bot's
 * second at Telegram, with 25 approved in every second (bench:telegram, 100 chats, a quiet machine).
 */
export interface CallSlot {
  until: number;
}

/** Resolves when `event` settles, at `until`, or when `signal` aborts: whichever comes first. */
function sleepUntil(event: Promise<void> | undefined, until: number, signal?: AbortSignal): Promise<void> {
  const delay = until - Date.now();
  if (signal?.aborted || (delay <= 0 && !event)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = Number.isFinite(delay) ? setTimeout(done, Math.max(0, delay)) : undefined;
    signal?.addEventListener('abort', done, { once: true });
    void event?.then(done);
  });
}

const PACED = new Set([
  'sendMessage',
  'editMessageText',
  'sendPhoto',
  'sendDocument',
  'sendVoice',
  'sendAudio',
  'sendVideo',
  'sendAnimation',
  'sendSticker',
  'sendMediaGroup',
  'copyMessage',
  'forwardMessage',
]);

export class Pacer {
  private readonly chatNext = new Map<number | string, number>();
  /**
   * Each chat's last paced call: when Telegram answered it, or the promise of that answer. Telegram
   * counts a chat's messages as they arrive, so the next one leaves a second after the previous
   * one's answer (arrival comes before it), not a second after it left: a call delayed on its way
   * (a busy process, a slow network) or a slot's timer that fired late would otherwise bring the two
   * arrivals closer than the limit.
   */
  private readonly chatLast = new Map<number | string, LastCall>();
  private readonly groupSlots = new Map<number | string, number[]>();
  private readonly botSlots: number[] = [];
  /** This bot's recent drafts and chat actions (not paced messages, but calls all the same). */
  private readonly held: CallSlot[] = [];
  /** Drafts approved whose call has not yet passed the transformer (claimDraft), oldest first. */
  private readonly unclaimed: CallSlot[] = [];
  private sweepAt = 0;

  constructor(
    private readonly limits: PacingLimits = TELEGRAM_PACING,
    private readonly host: PreviewBudget = hostPreviews,
  ) {}

  /**
   * Whether a preview may go now: the bot's calls in the last second (messages, edits and drafts)
   * stay under perBotCallsPerSecond, and all but a chat's first preview fit the host's budget. A
   * refused preview is not lost: the chat's newest text goes at its next turn, or as the answer.
   * `draft`: a draft (counted here); an edit is a paced message, counted by reserve().
   */
  preview(now: number, first: boolean, draft: boolean): boolean {
    if (this.full(now)) return false;
    if (!first && !this.host.take(now)) return false;
    if (draft) this.unclaimed.push(this.hold(now));
    return true;
  }

  /** A chat action that may go now (counted if so), or undefined: only while the bot's second has room. */
  action(now: number): CallSlot | undefined {
    if (this.full(now)) return undefined;
    return this.hold(now);
  }

  /**
   * The slot of the draft now leaving: the newest approved one. A preview sends its draft in the
   * turn it was approved (grammY runs the transformers synchronously), so an older slot still
   * unclaimed is a preview that sent nothing (its text unchanged): it stops counting. A draft sent
   * without asking preview() takes a slot of its own.
   */
  claimDraft(now: number): CallSlot {
    const mine = this.unclaimed.pop() ?? this.hold(now);
    for (const unsent of this.unclaimed.splice(0)) {
      const i = this.held.indexOf(unsent);
      if (i >= 0) this.held.splice(i, 1); // not yet forgotten by full()
    }
    return mine;
  }

  /** The call of `slot` is on the wire: it counts until answered(). */
  sent(slot: CallSlot) {
    slot.until = Number.POSITIVE_INFINITY;
  }

  /** Telegram answered the call of `slot` (or it failed) at `now`: it counts for one more second. */
  answered(slot: CallSlot, now: number) {
    slot.until = now + 1000;
  }

  /** Counted from `now` for a second (until its call is sent, when sent() holds it to its answer). */
  private hold(now: number): CallSlot {
    const slot = { until: now + 1000 };
    this.held.push(slot);
    return slot;
  }

  /** The bot's calls in the last second (messages, edits, drafts, chat actions) reached its budget. */
  private full(now: number): boolean {
    for (let i = this.held.length - 1; i >= 0; i--) if (this.held[i]!.until <= now) this.held.splice(i, 1);
    let recent = this.held.length;
    for (let i = this.botSlots.length - 1; i >= 0 && this.botSlots[i]! > now - 1000; i--)
      if (this.botSlots[i]! <= now) recent++;
    return recent >= this.limits.perBotCallsPerSecond;
  }

  /**
   * The drafts' and chat actions' places in the bot's second as times, sorted: each counts for the
   * second before its `until`, and a call still on the wire as if answered now.
   */
  private callTimes(now: number): number[] {
    return this.held.map((c) => (c.until === Number.POSITIVE_INFINITY ? now : c.until - 1000)).sort((a, b) => a - b);
  }

  /** The first time at or after `now` all three limits allow a message to `chat`, now taken. */
  reserve(chat: number | string, now: number): number {
    const isGroup = typeof chat === 'string' || chat < 0;
    let slot = Math.max(now, this.chatNext.get(chat) ?? 0);
    const calls = this.callTimes(now);
    const group = isGroup ? (this.groupSlots.get(chat) ?? []) : undefined;
    for (let settled = false; !settled; ) {
      settled = true;
      const g = group && nthRecent(group, slot, 60_000, this.limits.perGroupPerMinute);
      if (g !== undefined && g + 60_000 > slot) {
        slot = g + 60_000;
        settled = false;
      }
      const b = nthRecent(this.botSlots, slot, 1000, this.limits.perBotPerSecond);
      if (b !== undefined && b + 1000 > slot) {
        slot = b + 1000;
        settled = false;
      }
      // A second with drafts or chat actions in it holds perBotCallsPerSecond calls in all: the
      // answer waits for room (it is never dropped); drafts had already left none.
      const c = nthRecentCall(this.botSlots, calls, slot, this.limits.perBotCallsPerSecond);
      if (c !== undefined && c + 1000 > slot) {
        slot = c + 1000;
        settled = false;
      }
    }
    this.chatNext.set(chat, slot + this.limits.perChatMs);
    insert(this.botSlots, slot);
    if (group) {
      insert(group, slot);
      this.groupSlots.set(chat, group);
    }
    this.sweep(now);
    return slot;
  }

  /**
   * Resolves when a message to `chat` may leave (or when `signal` aborts): once Telegram answered
   * the chat's previous message, at least perChatMs after that answer, and at a slot the group's and
   * the bot's limits allow. Resolves with `answered`, to be called once Telegram answered this
   * message (or its call failed).
   */
  async wait(chat: number | string, signal?: AbortSignal): Promise<() => void> {
    const previous = this.chatLast.get(chat);
    let release!: () => void;
    const mine: LastCall = { answer: new Promise<void>((r) => (release = r)) };
    this.chatLast.set(chat, mine);
    const answered = () => {
      if (mine.answeredAt !== undefined) return;
      mine.answeredAt = Date.now();
      release();
    };
    // The chat's messages go one after another, in the order they were made: the previous one's
    // call ends in a bounded time (the client's 40 s timeout a try, auto-retry's bounded waits on a
    // 429), and a message sent while it waits out a 429 would overtake it.
    if (previous && previous.answeredAt === undefined)
      await sleepUntil(previous.answer, Number.POSITIVE_INFINITY, signal);
    if (previous?.answeredAt !== undefined)
      await sleepUntil(undefined, previous.answeredAt + this.limits.perChatMs, signal);
    // Reserved only now that it can leave, so the group's and the bot's windows count it when it goes.
    await sleepUntil(undefined, this.reserve(chat, Date.now()), signal);
    return answered;
  }

  /** Forgets what can no longer limit anything (a minute is the longest window). */
  private sweep(now: number) {
    if (now < this.sweepAt) return;
    this.sweepAt = now + 10_000;
    for (const [chat, next] of this.chatNext) if (next < now) this.chatNext.delete(chat);
    for (const [chat, last] of this.chatLast)
      if (last.answeredAt !== undefined && last.answeredAt + this.limits.perChatMs < now) this.chatLast.delete(chat);
    for (const [chat, slots] of this.groupSlots) {
      while (slots.length && slots[0]! < now - 60_000) slots.shift();
      if (!slots.length) this.groupSlots.delete(chat);
    }
    while (this.botSlots.length && this.botSlots[0]! < now - 1000) this.botSlots.shift();
  }
}

/** Of the reserved slots within `windowMs` before `slot`, the one `count` places back (the limit's edge). */
function nthRecent(slots: number[], slot: number, windowMs: number, count: number): number | undefined {
  let inWindow = 0;
  for (let i = slots.length - 1; i >= 0; i--) {
    const s = slots[i]!;
    if (s > slot) continue;
    if (s <= slot - windowMs) break;
    inWindow++;
    if (inWindow === count) return s;
  }
  return undefined;
}

/**
 * Of the messages, drafts and chat actions within the second before `slot`, the one `count` places
 * back, when that second holds a draft or action (a bot sending messages only keeps Telegram's 30).
 */
function nthRecentCall(messages: number[], drafts: number[], slot: number, count: number): number | undefined {
  let m = messages.length - 1;
  while (m >= 0 && messages[m]! > slot) m--;
  let d = drafts.length - 1;
  while (d >= 0 && drafts[d]! > slot) d--;
  if (d < 0 || drafts[d]! <= slot - 1000) return undefined;
  for (let inWindow = 0; m >= 0 || d >= 0; ) {
    const s = d < 0 || (m >= 0 && messages[m]! >= drafts[d]!) ? messages[m--]! : drafts[d--]!;
    if (s <= slot - 1000) return undefined;
    if (++inWindow === count) return s;
  }
  return undefined;
}

function insert(sorted: number[], value: number) {
  let i = sorted.length;
  while (i > 0 && sorted[i - 1]! > value) i--;
  sorted.splice(i, 0, value);
}

/**
 * The transformer: paced methods wait for their slot; a chat action over the bot's budget is left
 * out (answered as Telegram answers one sent); drafts and chat actions hold their place in the bot's
 * second until a second after their answer; the rest go at once.
 */
export function pacing(pacer: Pacer, stop: AbortSignal): Transformer {
  return async (prev, method, payload, signal) => {
    if (method === 'sendChatAction' || method === 'sendMessageDraft') {
      const slot = method === 'sendChatAction' ? pacer.action(Date.now()) : pacer.claimDraft(Date.now());
      if (!slot) return { ok: true, result: true } as never;
      pacer.sent(slot);
      try {
        return await prev(method, payload, signal);
      } finally {
        pacer.answered(slot, Date.now());
      }
    }
    const chat = (payload as { chat_id?: number | string } | undefined)?.chat_id;
    if (!PACED.has(method) || chat === undefined) return prev(method, payload, signal);
    const cancel = (signal as AbortSignal | undefined) ?? stop;
    const answered = await pacer.wait(chat, cancel);
    if (cancel.aborted) {
      answered();
      throw new NotSentError(`${method} not sent: the channel stopped while it waited for its turn`);
    }
    try {
      return await prev(method, payload, signal);
    } finally {
      answered();
    }
  };
}
