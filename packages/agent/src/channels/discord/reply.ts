// Answers one Discord message from the core's events (DESIGN §9.1): "typing…" until there is
// something to show, then one message edited as the answer is written, at most one edit per
// EDIT_EVERY_MS (a channel takes 5 messages or edits per 5 s; REST's bucket queue holds anything
// beyond, so no request is refused), and at the end the answer in Discord Markdown parts ≤ 2,000:
// the streamed message becomes the first, the others follow. In servers the answer replies to the
// message that asked. A failed turn turns the half-written message into the apology.
import type { Logger } from 'pino';
import { providerFailure, type TurnEvent } from '../../core/events.js';
import type { InboundMessage } from '../../core/inbound.js';
import type { Texts } from '../telegram/texts/index.js';
import type { DiscordSender } from './sender.js';
import { DISCORD_MAX_MESSAGE, renderDiscord } from './render.js';

/** Between two edits of the streamed message: 4 a 5 s window at most, one left for the final text. */
export const EDIT_EVERY_MS = 1_250;
/** Discord shows "typing…" for 10 s after each call. */
const TYPING_EVERY_MS = 8_000;

export interface AnswerDeps {
  log: Logger;
  agent: string;
  sender: DiscordSender;
  respond(inbound: InboundMessage, signal: AbortSignal): AsyncIterable<TurnEvent>;
  signal: AbortSignal;
  stream: boolean;
}

/** The answer so far as the streamed message shows it: its first part, marked as unfinished. */
export const preview = (text: string) => `${renderDiscord(text, DISCORD_MAX_MESSAGE - 2)[0]} …`;

export async function answer(
  d: AnswerDeps,
  where: { channelId: string; replyTo?: string },
  inbound: InboundMessage,
  texts: Texts,
) {
  const { sender } = d;
  let shownId: string | undefined;
  let shownAt = 0;
  let latest = '';
  let shownText = '';
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const typing = () => {
    if (shownId === undefined) void sender.typing(where.channelId).catch(() => {});
  };
  typing();
  const typingTimer = setInterval(typing, TYPING_EVERY_MS);

  const flush = () => {
    timer = undefined;
    if (inFlight || d.signal.aborted || !latest.trim() || latest === shownText) return;
    const text = latest;
    shownText = text;
    inFlight = (async () => {
      if (shownId === undefined) shownId = await sender.send(where.channelId, preview(text), where.replyTo);
      else await sender.edit(where.channelId, shownId, preview(text));
    })()
      .catch((err) => d.log.debug({ agent: d.agent, err: (err as Error).message }, 'discord preview not shown'))
      .finally(() => {
        // Counted from when Discord took it: a call that waited in REST's queue is no head start.
        shownAt = Date.now();
        inFlight = undefined;
        if (latest !== shownText) schedule();
      });
  };
  const schedule = () => {
    if (timer || inFlight) return;
    timer = setTimeout(flush, Math.max(0, shownAt + EDIT_EVERY_MS - Date.now()));
  };

  try {
    let text = '';
    let toolRan = false;
    let final = '';
    for await (const ev of d.respond(inbound, d.signal)) {
      if (ev.type === 'error') throw ev.error;
      if (ev.type === 'delta') {
        // Text after a tool ran is a new step of the turn: the preview starts over with it.
        if (toolRan) text = '';
        toolRan = false;
        text += ev.content;
        if (d.stream) {
          latest = text;
          schedule();
        }
      } else if (ev.type === 'tool') toolRan = true;
      else if (ev.type === 'done') final = ev.content;
    }
    await settle();
    if (d.signal.aborted) return;
    const parts = renderDiscord(final);
    let i = 0;
    if (shownId !== undefined) await sender.edit(where.channelId, shownId, parts[i++]!);
    for (; i < parts.length; i++) await sender.send(where.channelId, parts[i]!, i === 0 ? where.replyTo : undefined);
  } catch (err) {
    await settle();
    if (d.signal.aborted) return;
    d.log.warn({ agent: d.agent, err: (err as Error).message }, 'discord reply failed');
    const sorry = providerFailure(err) === 'credits' ? texts.credits : texts.failed;
    const said =
      shownId !== undefined
        ? sender.edit(where.channelId, shownId, sorry)
        : sender.send(where.channelId, sorry, where.replyTo);
    await said.catch(() => {});
  } finally {
    clearInterval(typingTimer);
    if (timer) clearTimeout(timer);
  }

  /** No preview after the end: the pending one is dropped, the one in flight waited for. */
  async function settle() {
    clearInterval(typingTimer);
    if (timer) clearTimeout(timer);
    timer = undefined;
    latest = shownText;
    await inFlight;
  }
}
