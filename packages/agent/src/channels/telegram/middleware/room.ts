// One middleware tree serves every bot of a host (tree.ts); what differs per bot is its room, the
// channel it belongs to, which the bot puts on each update's context. A tree per bot held ~13 KB
// of grammY composers and closures for every idle bot (bench:density, 10,000 bots: 471 MB against
// round 2's 331 MB).
import type { Context } from 'grammy';
import type { RateLimiterMemory } from 'rate-limiter-flexible';
import type { AssistantSettings } from '@berth/contracts/settings';
import type { AccessStore } from '../../../storage/access.js';
import type { UserData } from '../../../storage/user-data.js';
import { type Texts, textsFor } from '../texts/index.js';

/** What the shared middleware asks of the bot an update came to. */
export interface BotRoom {
  readonly agent: string;
  /** Pairing codes and daily counts (settings.access). */
  readonly accessStore: AccessStore;
  /** Memory and schedules, for /memory, /forget, /reminders and /cancel_<id>; absent without them. */
  readonly userData: UserData | undefined;
  /** The assistant's settings now (the owner may change them while the bot runs). */
  settings(): AssistantSettings;
  /** Starts a new conversation in this chat, or in only this forum topic of it (/reset). */
  resetChat(chatId: number, topic?: number): void;
  /** The host's schedule timer, after a cancel. */
  wakeScheduler(): void;
  /** This bot's per-chat message budget, made with the bot's first message. */
  chatLimiter(): { limiter: RateLimiterMemory; perMinute: number };
  /** Answers a message the gates let through: words, or a photo, voice note or document. */
  answerText(ctx: Context): Promise<unknown>;
  answerMedia(ctx: Context): Promise<unknown>;
  /** Decides a pending pairing code through the control plane (the owner pressed a button). */
  decidePairing(code: string, decision: PairingDecision): Promise<PairingOutcome>;
  /** A message's place in its sender's line, taken before any check (they take different times). */
  arrives(ctx: Context, next: () => Promise<void>): Promise<void>;
  /** An edited message: read in its edited form if its turn has not started. */
  answerEdit(ctx: Context): void;
}

/** The owner's answer to a pairing request (owner-pairing.ts). */
export type PairingDecision = 'approve' | 'deny';
/** What the control plane answered: decided, no such pending code, or no answer. */
export type PairingOutcome = 'done' | 'gone' | 'failed';

type RoomContext = Context & { room: BotRoom };

export const enter = (ctx: Context, room: BotRoom) => {
  (ctx as RoomContext).room = room;
};

export const roomOf = (ctx: Context): BotRoom => (ctx as RoomContext).room;

/** Berth's sentences in the assistant's language, or the sender's when the setting is auto. */
export const textsOf = (ctx: Context): Texts => textsFor(roomOf(ctx).settings().language, ctx.from?.language_code);
