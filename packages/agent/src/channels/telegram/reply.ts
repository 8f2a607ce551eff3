// Answers one Telegram message from the core's events: a live preview while the answer is
// written (live-preview.ts), then the answer as persistent formatted messages. In groups the
// answer replies to the message that asked (reply_parameters).
import type { Context } from 'grammy';
import type { Logger } from 'pino';
import { providerFailure, type TurnEvent } from '../../core/events.js';
import type { InboundMessage } from '../../core/inbound.js';
import { LivePreview, type PreviewGate } from './live-preview.js';
import { editHtml, sendHtml } from './outbound.js';
import { previewHtml, toolLine } from './render/draft.js';
import { renderParts } from './render/index.js';
import { topicOf } from './bursts.js';
import type { Texts } from './texts/index.js';
import { CAPTION_MAX, sendFiles, sendVoiceParts, speechParts, wantsVoice, type VoiceReplies } from './send-media.js';
import { htmlToPlain } from './render/index.js';
import type { Speaker } from '../../model/media-out.js';
import type { OutFile } from '../../tools/tool.js';

export interface ReplyDeps {
  agent: string;
  log: Logger;
  respond(inbound: InboundMessage, signal: AbortSignal): AsyncIterable<TurnEvent>;
  signal: AbortSignal;
  /** Previews while the answer is written; without, only "typing…" until the answer. */
  stream: boolean;
  /** Whether Telegram refused this bot's drafts before (then groups' way: an edited message). */
  draftsRefused(): boolean;
  onDraftsRefused(): void;
  /** The bot's pacer: previews beyond its and the host's budget wait (pacing.ts). */
  previews?: PreviewGate;
  /** DESIGN §9.5: the answer also spoken (settings.voiceReplies), where the provider has speech. */
  voice?: { speaker: Speaker; mode(): VoiceReplies | undefined };
}

export async function reply(d: ReplyDeps, ctx: Context, inbound: InboundMessage, texts: Texts) {
  const chatId = ctx.chat!.id;
  const isPrivate = ctx.chat!.type === 'private';
  const replyTo = isPrivate ? undefined : ctx.message?.message_id;
  const topic = topicOf(ctx.message);
  const where = topic === undefined ? {} : { message_thread_id: topic };
  const preview = new LivePreview({
    api: ctx.api,
    chatId,
    topic,
    mode: isPrivate && !d.draftsRefused() ? 'draft' : 'edit',
    replyTo,
    onDraftsRefused: d.onDraftsRefused,
    ...(d.previews ? { budget: d.previews } : {}),
  });
  const typing = () => {
    if (preview.firstShownAt === undefined) ctx.replyWithChatAction('typing').catch(() => {});
  };
  // The model is asked first and "typing…" goes out a turn of the loop later: when a thousand
  // messages come at once, their model calls are not queued behind a thousand chat actions, and
  // the person sees no difference.
  const first = setImmediate(typing);
  const timer = setInterval(typing, 4500);
  const stopTyping = () => {
    clearImmediate(first);
    clearInterval(timer);
  };
  let text = '';
  let tool: string | undefined;
  let answer = '';
  let files: OutFile[] | undefined;
  try {
    for await (const ev of d.respond(inbound, d.signal)) {
      if (ev.type === 'error') throw ev.error;
      if (ev.type === 'delta') {
        // Text after a tool ran is a new step of the turn: the preview starts over with it.
        if (tool !== undefined) text = '';
        tool = undefined;
        text += ev.content;
      } else if (ev.type === 'tool') tool = toolLine(ev.emoji, ev.label);
      else if (ev.type === 'done') {
        answer = ev.content;
        files = ev.files;
      }
      if (ev.type !== 'done' && d.stream) {
        const [now, line] = [text, tool];
        preview.update(() => previewHtml(now, line));
      }
    }
    stopTyping();
    const edit = await preview.close();
    if (d.signal.aborted) return;
    const parts = renderParts(answer);
    // Only an answer the turn produced is spoken: a refused or failed turn never reaches here.
    const spoken = d.voice && wantsVoice(d.voice.mode(), Boolean(ctx.message?.voice)) ? d.voice : undefined;
    const speech = spoken ? speechParts(parts) : [];
    // A short answer is the voice note's caption; a longer one stays text messages beside it.
    const asCaption =
      spoken && edit === undefined && parts.length === 1 && [...htmlToPlain(parts[0]!)].length <= CAPTION_MAX;
    if (
      !(
        asCaption &&
        (await sendVoiceParts(ctx.api, chatId, spoken.speaker, speech, d.signal, { caption: parts[0], replyTo }))
      )
    ) {
      let i = 0;
      if (edit !== undefined) await editHtml(ctx.api, chatId, edit, parts[i++]!);
      for (; i < parts.length; i++) await sendHtml(ctx.api, chatId, parts[i]!, i === 0 ? replyTo : undefined, topic);
      if (spoken && !asCaption) await sendVoiceParts(ctx.api, chatId, spoken.speaker, speech, d.signal);
    }
    await sendFiles(ctx.api, chatId, files);
  } catch (err) {
    stopTyping();
    const edit = await preview.close();
    if (d.signal.aborted) return;
    d.log.warn({ agent: d.agent, err: (err as Error).message }, 'telegram reply failed');
    const sorry = providerFailure(err) === 'credits' ? texts.credits : texts.failed;
    // A half-written preview message becomes the apology instead of staying half written.
    const said =
      edit !== undefined
        ? ctx.api.editMessageText(chatId, edit, sorry)
        : ctx.api.sendMessage(chatId, sorry, {
            ...where,
            ...(replyTo ? { reply_parameters: { message_id: replyTo } } : {}),
          });
    await said.catch(() => {});
  } finally {
    stopTyping();
  }
}
