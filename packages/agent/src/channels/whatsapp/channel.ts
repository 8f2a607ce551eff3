// One WhatsApp Cloud API number of an assistant (DESIGN §9.1). Nothing is polled: Meta's webhooks
// reach the control plane's ingress, which stores each message and delivers it here
// (acceptUpdate); each message is marked read with the typing indicator, passes the owner's access
// rules and limits by phone number, and is answered through the Graph API (graph.ts) in
// WhatsApp's formatting (render.ts). An end user is ('whatsapp', wa_id): their memory, sessions
// and daily count are their own, apart from a Telegram user of the same bot.
import { setMaxListeners } from 'node:events';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { providerFailure } from '../../core/events.js';
import { channelSession, channelUser, idIn, type InboundMessage, scheduledTurn } from '../../core/inbound.js';
import { admitListed, type ListedAccess } from '../listed-access.js';
import type {
  Channel,
  ChannelContext,
  ChannelHealth,
  ChannelState,
  Outbound,
  Scheduled,
  ScheduledAdmission,
} from '../channel.js';
import { Graph, GraphError, TOKEN_CODES, WINDOW_CODE } from './graph.js';
import { MediaRefusal, mediaTurn } from './media.js';
import { renderWhatsApp, WHATSAPP_MAX_MESSAGE } from './render.js';
import { packBlocks } from '../markdown/split.js';
import { sendFiles, sendVoice, speakable, wantsVoice } from './send-media.js';
import type { OutFile } from '../../core/events.js';
import { fill, textsFor, type WhatsAppTexts } from './texts/index.js';
import { messagesOf, type WaIncoming } from './updates.js';

/** How long after a user's last message a business may write to them freely (Meta's rule). */
export const WINDOW_MS = 24 * 60 * 60 * 1000;
const PER_USER_PER_MINUTE = 20;
/** Where settings.access lists WhatsApp users (by number). */
const WHATSAPP_USERS: ListedAccess = {
  channel: 'whatsapp',
  allowed: 'whatsappNumbers',
  blocked: 'blockedWhatsappNumbers',
};

export interface WhatsAppOptions {
  phoneNumberId: string;
  accessToken: string;
  apiRoot: string;
  /** The first wait after Meta's rate limit (graph.ts); tests shorten it. */
  backoffMs?: number;
  /** The first wait before the start-up check is tried again when Meta cannot be reached. */
  retryMs?: number;
  now?: () => number;
}

/** Why the channel failed or what Meta last refused, in words the owner can act on. */
export function graphProblem(err: GraphError): string {
  if (TOKEN_CODES.has(err.code ?? 0) || err.status === 401)
    return "WhatsApp: Meta refused the access token (it was revoked or has expired). Create a new one in Meta's console and set it with PUT /api/v1/assistants/{id}/channels/whatsapp.";
  if (err.code === 100 && err.status === 400)
    return `WhatsApp: Meta does not know this phone number id with this token (${err.message}). Check the phoneNumberId.`;
  if (err.code === 130429)
    return "WhatsApp: Meta's message throughput limit for this number (130429) held back a reply after several tries.";
  if (err.code === 131056)
    return 'WhatsApp: too many messages to one user in a short time (131056, pair rate limit); a reply was held back.';
  if (err.code === WINDOW_CODE)
    return 'WhatsApp: a message could not be sent because the user last wrote more than 24 hours ago (131047).';
  return `WhatsApp: Meta refused a message (HTTP ${err.status}, code ${err.code ?? 'none'}): ${err.message}`;
}

export class WhatsAppChannel implements Channel, Outbound, Scheduled {
  readonly type = 'whatsapp';
  private readonly abort = new AbortController();
  private readonly graph: Graph;
  private stateNow: ChannelState = 'connecting';
  private problem: string | undefined;
  /** Each user's messages are answered one after the other, in the order they came (tail per user). */
  private readonly lines = new Map<string, Promise<void>>();
  private readonly inflight = new Set<Promise<void>>();
  private limiter: RateLimiterMemory | undefined;
  private display: string | null = null;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: WhatsAppOptions,
    private readonly ctx: ChannelContext,
  ) {
    setMaxListeners(0, this.abort.signal);
    this.graph = new Graph({
      apiRoot: o.apiRoot,
      phoneNumberId: o.phoneNumberId,
      accessToken: o.accessToken,
      signal: this.abort.signal,
      ...(o.backoffMs !== undefined ? { backoffMs: o.backoffMs } : {}),
    });
  }

  private now() {
    return this.o.now?.() ?? Date.now();
  }

  get outbound(): Outbound {
    return this;
  }
  get scheduled(): Scheduled {
    return this;
  }
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  health(): ChannelHealth {
    return { state: this.stateNow, error: this.problem };
  }

  details() {
    return { phoneNumberId: this.o.phoneNumberId, displayPhoneNumber: this.display };
  }

  applySettings() {
    // Access rules and limits are read per message: nothing of WhatsApp's own follows them.
  }

  /** Proves the token with Meta (GET /{phone-number-id}); Meta unreachable: tried again, doubling. */
  start() {
    void this.connect(this.o.retryMs ?? 1000);
  }

  private async connect(delay: number): Promise<void> {
    if (this.abort.signal.aborted) return;
    try {
      const phone = await this.graph.phoneNumber();
      this.display = phone.displayPhoneNumber ?? null;
      this.stateNow = 'connected';
      this.problem = undefined;
      this.replayInbox();
      this.ctx.wakeScheduler();
    } catch (err) {
      if (this.abort.signal.aborted) return;
      if (err instanceof GraphError && err.status >= 400 && err.status < 500) return this.fail(err);
      this.ctx.log.warn({ agent: this.ctx.agent, err: (err as Error).message }, 'WhatsApp Graph API unreachable');
      this.problem = `WhatsApp: Meta's Graph API could not be reached (${(err as Error).message}); trying again.`;
      this.retryTimer = setTimeout(() => void this.connect(Math.min(delay * 2, 60_000)), delay);
      this.retryTimer.unref();
    }
  }

  /** The token or number is refused: nothing is sent until the owner sets new credentials. */
  private fail(err: GraphError) {
    this.stateNow = 'failed';
    this.problem = graphProblem(err);
    this.ctx.log.warn({ agent: this.ctx.agent, code: err.code, status: err.status }, 'WhatsApp channel failed');
  }

  async stop() {
    clearTimeout(this.retryTimer);
    this.abort.abort();
    this.stateNow = 'stopped';
    await Promise.allSettled([...this.inflight]);
  }

  /**
   * A delivered update: each of its messages is handled in its sender's line. False while the
   * channel is not connected (still checking, or failed): the control plane delivers it again.
   */
  acceptUpdate(update: unknown): boolean {
    if (this.stateNow !== 'connected') return false;
    for (const incoming of messagesOf(update, this.o.phoneNumberId)) {
      const key = inboxKey(this.o.phoneNumberId, incoming.message.id);
      // Taken before (and answered, or still in its line): the control plane's delivery after a
      // restart of this host is not a second reply.
      if (this.ctx.state.channelValue(this.ctx.agent, key) !== undefined) continue;
      this.sawUser(incoming.message.from, incoming.at);
      // Kept before the 200: a kill -9 between here and the reply is answered at the next start.
      this.ctx.state.setChannelValue(this.ctx.agent, key, JSON.stringify(incoming));
      this.enqueue(key, incoming);
    }
    return true;
  }

  /** The messages taken but not answered when the host last stopped (a crash, a restart), in order. */
  private replayInbox() {
    const now = this.now();
    const pending: Array<{ key: string; kept: WaIncoming }> = [];
    for (const { key, value } of this.ctx.state.channelValues(this.ctx.agent, inboxKey(this.o.phoneNumberId, ''))) {
      const kept = JSON.parse(value) as WaIncoming | { done: number };
      if ('done' in kept) {
        // Remembered for as long as the control plane may still deliver it (its retries span about an hour).
        if (now - kept.done > INBOX_DONE_MS) this.ctx.state.deleteChannelValue(this.ctx.agent, key);
        continue;
      }
      // Past the 24-hour window an answer could not be sent anyway.
      if (now - (kept.at ?? now) > WINDOW_MS) {
        this.ctx.state.deleteChannelValue(this.ctx.agent, key);
        continue;
      }
      pending.push({ key, kept });
    }
    // In the order they were written (the keys are message ids, in no order).
    pending.sort((a, b) => (a.kept.at ?? 0) - (b.kept.at ?? 0));
    for (const { key, kept } of pending) this.enqueue(key, kept);
  }

  /** The message in its sender's line; marked done once handled, unless the channel stopped meanwhile. */
  private enqueue(key: string, incoming: WaIncoming) {
    const from = incoming.message.from;
    const p = (this.lines.get(from) ?? Promise.resolve())
      .then(() => this.handle(incoming))
      .finally(() => {
        if (!this.abort.signal.aborted)
          this.ctx.state.setChannelValue(this.ctx.agent, key, JSON.stringify({ done: this.now() }));
      })
      .catch((err) =>
        this.ctx.log.warn({ agent: this.ctx.agent, err: (err as Error).message }, 'WhatsApp message failed'),
      );
    this.lines.set(from, p);
    this.inflight.add(p);
    void p.finally(() => {
      this.inflight.delete(p);
      // The last one out removes the line, so idle users cost no memory.
      if (this.lines.get(from) === p) this.lines.delete(from);
    });
  }

  private sawUser(waId: string, at: number | undefined) {
    const when = Math.min(at ?? this.now(), this.now());
    const key = windowKey(this.o.phoneNumberId, waId);
    const before = this.ctx.state.channelValue(this.ctx.agent, key);
    if (!before || Number(before) < when) this.ctx.state.setChannelValue(this.ctx.agent, key, String(when));
  }

  /** When the user last wrote to this number, or undefined when never (as far as this host knows). */
  lastWrote(waId: string): number | undefined {
    const v = this.ctx.state.channelValue(this.ctx.agent, windowKey(this.o.phoneNumberId, waId));
    return v === undefined ? undefined : Number(v);
  }

  private async handle({ message: m, name }: WaIncoming) {
    if (this.abort.signal.aborted) return;
    const to = m.from;
    // Read receipts and the typing indicator first: the user sees the message was taken.
    void this.graph
      .call('POST', `${this.o.phoneNumberId}/messages`, {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: m.id,
        typing_indicator: { type: 'text' },
      })
      .catch((err) => this.refused(err));
    const t = this.textsTo(to);
    const verdict = this.gate(to, true);
    if (verdict === 'not_allowed') return this.say(to, t.notAllowed);
    if (verdict === 'first_over') return this.say(to, t.dailyLimit);
    if (verdict === 'over') return;
    if (!(await this.budget(to, t))) return;

    let turn: { text: string; images?: string[]; stored?: string; notice?: string };
    if (m.type === 'text' && typeof m.text?.body === 'string') turn = { text: m.text.body };
    else {
      try {
        turn = await mediaTurn(m, {
          graph: this.graph,
          vision: this.ctx.media.vision,
          transcriber: this.ctx.media.transcriber,
          ...(this.ctx.media.documents ? { documents: this.ctx.media.documents } : {}),
          tenant: this.ctx.agent,
          signal: this.abort.signal,
          texts: t,
        });
      } catch (err) {
        if (this.abort.signal.aborted) return;
        if (err instanceof MediaRefusal) return this.say(to, err.sentence);
        this.refused(err);
        return this.say(to, providerFailure(err) === 'credits' ? t.credits : t.failed);
      }
      if (turn.notice) await this.say(to, turn.notice);
    }
    const inbound: InboundMessage = {
      channel: 'whatsapp',
      chat: { id: to, type: 'private' },
      session: channelSession('whatsapp', to, 0),
      sender: { id: to, ...(name ? { firstName: name } : {}) },
      text: turn.text,
      mentioned: true,
      ...(turn.images ? { images: turn.images } : {}),
      ...(turn.stored ? { stored: turn.stored } : {}),
    };
    let answer = '';
    let files: OutFile[] = [];
    try {
      for await (const ev of this.ctx.respond(inbound, this.abort.signal)) {
        if (ev.type === 'error') throw ev.error;
        if (ev.type === 'done') {
          answer = ev.content;
          files = ev.files ?? [];
        }
      }
    } catch (err) {
      if (this.abort.signal.aborted) return;
      this.ctx.log.warn({ agent: this.ctx.agent, err: (err as Error).message }, 'WhatsApp turn failed');
      return this.say(to, providerFailure(err) === 'credits' ? t.credits : t.failed);
    }
    if (this.abort.signal.aborted) return;
    try {
      const parts = await this.sendParts(to, renderWhatsApp(answer));
      await sendFiles(this.graph, to, files);
      const speaker = this.ctx.media.speaker;
      if (speaker && wantsVoice(this.ctx.settings().voiceReplies, m.type === 'audio'))
        await sendVoice(this.graph, to, speaker, speakable(parts), this.abort.signal);
    } catch (err) {
      this.refused(err);
    }
  }

  /** Berth's sentences in the user's language: read per message, the owner may change settings.language. */
  private textsTo(waId: string): WhatsAppTexts {
    return textsFor(this.ctx.settings().language, waId);
  }

  /** One of Berth's sentences to the user; a refusal is noted, never thrown. */
  private async say(to: string, sentence: string) {
    await this.sendText(to, sentence).catch((err) => this.refused(err));
  }

  /** A Graph API refusal: a refused token fails the channel; others show as its problem until a send succeeds. */
  private refused(err: unknown) {
    if (this.abort.signal.aborted) return;
    if (!(err instanceof GraphError)) {
      this.ctx.log.warn({ agent: this.ctx.agent, err: (err as Error).message }, 'WhatsApp call failed');
      return;
    }
    if (TOKEN_CODES.has(err.code ?? 0) || err.status === 401) return this.fail(err);
    this.problem = graphProblem(err);
    this.ctx.log.warn({ agent: this.ctx.agent, code: err.code, status: err.status }, 'WhatsApp refused a message');
  }

  /**
   * The owner's access rules for a phone number (settings.access): allowed, blocked, over today's
   * cap (`counted`: this one counts against it).
   */
  private gate(waId: string, counted: boolean): ScheduledAdmission {
    return admitListed(this.ctx, WHATSAPP_USERS, waId, counted, () => this.now());
  }

  /** One user's turns per minute; past it one sentence, then silence until the minute is over. */
  private async budget(waId: string, t: WhatsAppTexts): Promise<boolean> {
    this.limiter ??= new RateLimiterMemory({ points: PER_USER_PER_MINUTE, duration: 60 });
    try {
      await this.limiter.consume(waId);
      return true;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      if (res.consumedPoints === PER_USER_PER_MINUTE + 1) await this.say(waId, t.slowDown);
      return false;
    }
  }

  // Outbound ----------------------------------------------------------------------------------

  /** Text in WhatsApp's formatting, in parts of at most 4,096 characters; resolves with the part numbers sent. */
  /** Sends rendered parts in order; resolves with them. */
  private async sendParts(to: string, parts: string[]): Promise<string[]> {
    for (const body of parts) await this.graph.send({ recipient_type: 'individual', to, type: 'text', text: { body } });
    if (this.stateNow === 'connected') this.problem = undefined;
    return parts;
  }

  async sendText(chatId: string, text: string, opts?: { markdown?: boolean }): Promise<number[]> {
    // Berth's own sentences are sent as they are; the model's Markdown is rendered.
    const parts = opts?.markdown ? renderWhatsApp(text) : packBlocks([{ kind: 'text', text }], WHATSAPP_MAX_MESSAGE);
    // WhatsApp's message ids are text (wamid.…): the port's numbers are the parts' positions.
    return (await this.sendParts(chatId, parts)).map((_, i) => i);
  }

  // Scheduled ---------------------------------------------------------------------------------

  ready() {
    return this.stateNow === 'connected';
  }
  chatOf(chat: string) {
    const id = idIn('whatsapp', 'chat', chat);
    return id && /^[0-9]{1,20}$/.test(id) ? id : undefined;
  }
  /** A scheduled occurrence under the same rules; a task's turn counts as a reply, a reminder does not. */
  admit(user: string, task: boolean): ScheduledAdmission {
    const waId = idIn('whatsapp', 'user', user);
    return waId ? this.gate(waId, task) : 'not_allowed';
  }
  inbound(chatId: string, user: string, text: string): InboundMessage {
    const sender = idIn('whatsapp', 'user', user) ?? chatId;
    return scheduledTurn(
      'whatsapp',
      { id: chatId, type: 'private' },
      channelSession('whatsapp', chatId, 0),
      sender,
      text,
    );
  }
  refusal(why: 'dailyLimit' | Error, chatId: string) {
    const t = this.textsTo(chatId);
    return why === 'dailyLimit' ? t.dailyLimit : providerFailure(why) === 'credits' ? t.credits : t.failed;
  }

  /**
   * WhatsApp's 24-hour window (DESIGN §9.1): a reminder due after it closes would be refused by
   * Meta (131047) and never reach the user, so it is refused now, in words; a repeating one too,
   * since its later occurrences would fall outside it.
   */
  refuseAt(chatId: string, at: number, repeats: boolean): string | undefined {
    const last = this.lastWrote(chatId) ?? this.now();
    const closes = last + WINDOW_MS;
    if (!repeats && at <= closes) return undefined;
    const t = this.textsTo(chatId);
    // In the user's own time zone when they told it (else the assistant's, else UTC), named beside it.
    const zone =
      this.ctx.userData.prefs.timezone(this.ctx.agent, channelUser('whatsapp', chatId)) ??
      this.ctx.settings().timezone ??
      'UTC';
    const format = new Intl.DateTimeFormat(t.locale, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
    const when = (ms: number) => `${format.format(ms)} (${zone})`;
    if (repeats) return fill(t.repeatsOutsideWindow, { closes: when(closes) });
    return fill(t.outsideWindow, { at: when(at), closes: when(closes) });
  }
}

const windowKey = (phoneNumberId: string, waId: string) => `whatsapp-last:${phoneNumberId}:${waId}`;
/** A message taken from the control plane: its update while unanswered, then `{ done }`. */
const inboxKey = (phoneNumberId: string, messageId: string) => `whatsapp-inbox:${phoneNumberId}:${messageId}`;
/** How long a handled message's id is remembered against a second delivery. */
const INBOX_DONE_MS = 2 * 24 * 60 * 60 * 1000;
