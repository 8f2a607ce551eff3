// The answer while it is being written. In private chats a draft (sendMessageDraft: an ephemeral
// preview Telegram replaces with the real message); in groups, or where Telegram refuses drafts,
// one message edited at most once a second. The newest text wins: at most one call per chat is in
// flight, updates arriving meanwhile are folded into the next one. The first text goes at once.
import { GrammyError, type Api } from 'grammy';
import { editHtml, sendHtml } from './outbound.js';

export interface PreviewOptions {
  api: Api;
  chatId: number;
  /** "draft" in private chats, "edit" elsewhere. */
  mode: 'draft' | 'edit';
  /** The message this answer replies to (groups). */
  replyTo?: number;
  /** The forum topic the answer goes to. */
  topic?: number;
  /** Least time between two drafts, and between two edits (Telegram: one message a second per chat). */
  draftEveryMs?: number;
  editEveryMs?: number;
  /** Told when Telegram refuses drafts, so later answers of this bot go straight to edits. */
  onDraftsRefused?(): void;
  /** The bot's and host's preview budget (pacing.ts): false holds this preview until its next turn. */
  budget?: PreviewGate;
}

/** Whether a preview may go now (the pacer's budget, pacing.ts). */
export interface PreviewGate {
  preview(now: number, first: boolean, draft: boolean): boolean;
}

/** How long the answer waits for a draft still on the wire (a round trip to Telegram is well under). */
export const DRAFT_GRACE_MS = 1_500;

export class LivePreview {
  /** The message being edited (edit mode), once sent. */
  messageId: number | undefined;
  /** When the first preview reached Telegram (for the benchmark). */
  firstShownAt: number | undefined;
  private mode: 'draft' | 'edit';
  private readonly draftId = Math.floor(Math.random() * 2 ** 31) + 1;
  /** The newest preview, rendered only when it is about to be sent (most updates never are). */
  private pending: (() => string) | undefined;
  private shown = '';
  private lastAt = 0;
  private inflight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly abort = new AbortController();

  constructor(private readonly o: PreviewOptions) {
    this.mode = o.mode;
  }

  /** The whole preview as it should look now: a function rendering it to HTML. */
  update(render: () => string) {
    if (this.closed) return;
    this.pending = render;
    this.schedule();
  }

  /**
   * Stops previewing: waits for a call in flight, so neither an edit nor a draft lands after the
   * final text. Resolves with the message to edit into the answer, if any.
   *
   * A draft on the wire is waited for rather than cut off: cutting an HTTP/1.1 call off destroys
   * its connection, so the answer went out on a new one (a TCP and TLS handshake; at 1,000 chats
   * streaming, connecting and closing were a fifth of the host's CPU), and Telegram, which had the
   * whole request, could still show that draft after the answer. Only a draft Telegram has not
   * answered within DRAFT_GRACE_MS is cut off, so a stalled call never holds the answer back.
   */
  async close(): Promise<number | undefined> {
    this.closed = true;
    clearTimeout(this.timer);
    this.pending = undefined;
    const cut =
      this.inflight && this.mode === 'draft' ? setTimeout(() => this.abort.abort(), DRAFT_GRACE_MS) : undefined;
    await this.inflight?.catch(() => {});
    clearTimeout(cut);
    return this.messageId;
  }

  private schedule() {
    if (this.inflight || this.timer || this.pending === undefined) return;
    const every = this.mode === 'draft' ? (this.o.draftEveryMs ?? 300) : (this.o.editEveryMs ?? 1000);
    const wait = this.lastAt ? this.lastAt + every - Date.now() : 0;
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.schedule();
      }, wait);
      return;
    }
    const now = Date.now();
    if (this.o.budget && !this.o.budget.preview(now, this.firstShownAt === undefined, this.mode === 'draft')) {
      // Over budget: the newest text stays pending and is tried again a turn later.
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.schedule();
        },
        Math.max(every, 100),
      );
      return;
    }
    const html = this.pending();
    this.pending = undefined;
    if (!html || html === this.shown) return;
    this.lastAt = now;
    this.inflight = this.push(html)
      .catch(() => {
        // A preview is best effort: the final answer is sent whatever happens here.
      })
      .finally(() => {
        this.inflight = undefined;
        if (!this.closed) this.schedule();
      });
  }

  private async push(html: string) {
    if (this.mode === 'draft') {
      try {
        await this.o.api.sendMessageDraft(
          this.o.chatId,
          this.draftId,
          html,
          { parse_mode: 'HTML', ...(this.o.topic === undefined ? {} : { message_thread_id: this.o.topic }) },
          this.abort.signal as never,
        );
        this.shown = html;
        this.firstShownAt ??= Date.now();
        return;
      } catch (err) {
        if (
          this.closed ||
          !(err instanceof GrammyError) ||
          err.error_code !== 400 ||
          /can't parse/i.test(err.description)
        )
          throw err;
        // Telegram does not offer drafts here: an edited message instead, from now on.
        this.mode = 'edit';
        this.o.onDraftsRefused?.();
      }
    }
    if (this.messageId === undefined)
      this.messageId = await sendHtml(this.o.api, this.o.chatId, html, this.o.replyTo, this.o.topic);
    else await editHtml(this.o.api, this.o.chatId, this.messageId, html);
    this.shown = html;
    this.firstShownAt ??= Date.now();
  }
}
