// What every channel offers the runtime (start, stop, health, new settings) and what the core and
// the scheduler use to speak first (Outbound, Scheduled). A channel reaches the core only through
// Responder.respond() (core/conversation.ts implements it); .dependency-cruiser.cjs holds it so.
// The runtime holds Channel[] and never a concrete channel: a new one is a folder beside
// telegram/ and one line in registry.ts (decision 0033).
import type { Logger } from 'pino';
import type { AssistantSettings } from '@berth/contracts/settings';
import type { TurnEvent } from '../core/events.js';
import type { InboundMessage } from '../core/inbound.js';
import type { AccessStore, Pairing } from '../storage/access.js';
import type { Speaker } from '../model/media-out.js';
import type { SessionStore } from '../storage/sessions.js';
import type { UserData } from '../storage/user-data.js';
import type { Transcriber } from '../model/transcriber.js';
import type { DocumentReader } from '../media/document-pool.js';

/** The core as a channel sees it. */
export interface Responder {
  /** Runs one turn; the events end with 'done' or 'error'. */
  respond(inbound: InboundMessage, signal: AbortSignal): AsyncGenerator<TurnEvent>;
  /** Claims room for a new session before its first turn (throws an AgentError when full). */
  admitSession(session: string, userText: string): void;
}

export type ChannelState = 'connecting' | 'connected' | 'failed' | 'stopped';

export interface ChannelHealth {
  state: ChannelState;
  /** Why the channel is not connected, in words an owner can act on (becomes statusMessage). */
  error: string | undefined;
}

export interface Channel {
  /** The control plane's name for it (DESIGN §9.1): "telegram", "whatsapp", "discord". */
  readonly type: string;
  start(): void;
  /** Ends at once: open polls are aborted, answers in flight finish or are dropped. */
  stop(): Promise<void>;
  health(): ChannelHealth;
  /** What the owner is shown beside the state (Telegram: the bot's username once it is known). */
  details(): Record<string, string | null>;
  /**
   * The owner changed the settings of a running assistant: the persona, tools and access rules
   * are read per turn, so a channel only follows what it shows itself (Telegram: its / menu).
   */
  applySettings(settings: AssistantSettings): void;
  /** Sending without being asked: reminders, scheduled tasks. */
  readonly outbound: Outbound;
  /** What the scheduler needs to deliver this channel's reminders and tasks. */
  readonly scheduled: Scheduled;
  /**
   * An update its platform POSTed to the control plane's webhook ingress (DESIGN §9.1); false when
   * the channel cannot take it yet (the control plane delivers it again).
   */
  acceptUpdate?(update: unknown): boolean;
  /** A stranger asked for access (pairing mode): the channel may tell the owner where it can (DESIGN §9.3). */
  pairingRequested?(p: Pairing): void;
}

/**
 * A send given up before it left: the channel stopped while the message waited for its turn
 * (Telegram's pacing). Nothing reached the platform, so whoever runs the assistant next may send it:
 * a scheduled message's claim goes back to the store (scheduler.ts) instead of being lost.
 */
export class NotSentError extends Error {
  override readonly name = 'NotSentError';
}

export interface SendOptions {
  /** Answer this message (Telegram: reply_parameters). */
  replyTo?: number;
  /** The text is Markdown from the model: render it for the channel. */
  markdown?: boolean;
}

/** Sending without being asked: reminders, scheduled tasks. */
export interface Outbound {
  /** Sends text to a chat, split as the channel needs; resolves with the ids of what was sent. */
  sendText(chatId: string, text: string, opts?: SendOptions): Promise<number[]>;
  /** Shows a passing preview of an answer being written, where the channel can. */
  draft?(chatId: string, text: string): Promise<void>;
}

/** What the owner's access rules say of a due occurrence (a task's turn counts as a reply). */
export type ScheduledAdmission = 'ok' | 'not_allowed' | 'first_over' | 'over';

/**
 * A channel's side of scheduled deliveries (scheduler/deliver.ts). Schedules keep the channel's
 * own keys ("telegram:<chat>", its end user's key), so only the channel reads them.
 */
export interface Scheduled {
  /** Aborted when the channel stops: a scheduled task's turn runs under it. */
  readonly signal: AbortSignal;
  /** The channel's chat id in a schedule's `chat`, or undefined when that chat is not this channel's. */
  chatOf(chat: string): string | undefined;
  /** False while the channel cannot send yet (still connecting): the occurrence waits, unclaimed. */
  ready(): boolean;
  /** The owner's access rules for the end user `user` (a schedule's key) at this occurrence. */
  admit(user: string, task: boolean): ScheduledAdmission;
  /** A task's turn, in the chat's current conversation, for the end user who asked. */
  inbound(chatId: string, user: string, text: string): InboundMessage;
  /** Why a task did not run, in one sentence of the language of the chat's user (WhatsApp: by number). */
  refusal(why: 'dailyLimit' | Error, chatId: string): string;
  /**
   * Why a reminder for `chatId` due at `at` (epoch ms) could not be sent then, in a sentence for
   * the user, or undefined when it could (WhatsApp: only within 24 h of the user's last message).
   * Asked when the reminder is scheduled, so nothing is accepted that would be dropped later.
   */
  refuseAt?(chatId: string, at: number, repeats: boolean): string | undefined;
}

/** One channel of an assistant as the runtime is given it: its type and that channel's own options. */
export interface ChannelConfig {
  readonly type: string;
}

/** What the runtime hands every channel it makes (the same for each; a channel takes what it uses). */
export interface ChannelContext {
  agent: string;
  log: Logger;
  respond(inbound: InboundMessage, signal: AbortSignal): AsyncIterable<TurnEvent>;
  /** The assistant's settings now (the owner may change them while the channel runs). */
  settings(): AssistantSettings;
  /** Pairing codes and daily counts (settings.access). */
  access: AccessStore;
  /** Memory and schedules, for the channel's own commands (/memory, /reminders, …). */
  userData: UserData;
  /** What a channel keeps between restarts (Telegram: its update offset and chat epochs). */
  state: SessionStore;
  wakeScheduler(): void;
  /** What the model reads besides text (DESIGN §7.3). */
  media: { vision: boolean; transcriber: Transcriber | undefined; documents?: DocumentReader; speaker?: Speaker };
  /** Decides a pending pairing code through the control plane (the owner answered in the channel). */
  decidePairing?(code: string, decision: 'approve' | 'deny'): Promise<'done' | 'gone' | 'failed'>;
}

export interface ChannelModule {
  /** Throws when `config` is not this channel's (a wiring mistake, never a user's input). */
  createChannel(config: ChannelConfig, ctx: ChannelContext): Channel;
}
