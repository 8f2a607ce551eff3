// Sending rendered answers: each part with parse_mode HTML; a part Telegram refuses to parse
// ("can't parse entities") goes again as plain text, so no answer is lost. Also the channel's
// Outbound port (DESIGN §8) for whoever speaks first: reminders, scheduled tasks.
import { GrammyError, type Api } from 'grammy';
import { NotSentError, type Outbound, type SendOptions } from '../channel.js';
import { htmlToPlain, renderParts, splitMessage } from './render/index.js';
import { parseAddress } from './address.js';

/**
 * A later part given up unsent is no longer "nothing sent": the earlier parts went, so a reminder
 * handed back on a NotSentError would send them twice.
 */
export const afterParts = (err: unknown, sent: number) =>
  err instanceof NotSentError && sent > 0 ? new Error(`${err.message} (after ${sent} part(s) were sent)`) : err;

export const cantParse = (err: unknown) =>
  err instanceof GrammyError && err.error_code === 400 && /can't parse entities/i.test(err.description);

/** A forum topic's answers go into that topic (message_thread_id); elsewhere none is sent. */
const replyParams = (replyTo: number | undefined, topic?: number) => ({
  ...(replyTo === undefined ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
  ...(topic === undefined ? {} : { message_thread_id: topic }),
});

/** Sends one HTML part; falls back to its plain text when Telegram cannot parse it. */
export async function sendHtml(
  api: Api,
  chatId: number,
  html: string,
  replyTo?: number,
  topic?: number,
): Promise<number> {
  try {
    return (await api.sendMessage(chatId, html, { parse_mode: 'HTML', ...replyParams(replyTo, topic) })).message_id;
  } catch (err) {
    if (!cantParse(err)) throw err;
    return (await api.sendMessage(chatId, htmlToPlain(html), replyParams(replyTo, topic))).message_id;
  }
}

/** Replaces a message's text with one HTML part, plain text when Telegram cannot parse it. */
export async function editHtml(api: Api, chatId: number, messageId: number, html: string): Promise<void> {
  try {
    await api.editMessageText(chatId, messageId, html, { parse_mode: 'HTML' });
  } catch (err) {
    if (err instanceof GrammyError && /message is not modified/.test(err.description)) return;
    if (!cantParse(err)) throw err;
    await api.editMessageText(chatId, messageId, htmlToPlain(html)).catch((e: unknown) => {
      if (!(e instanceof GrammyError && /message is not modified/.test(e.description))) throw e;
    });
  }
}

/** The model's Markdown as messages: parts in order, the first one answering `replyTo`. */
export async function sendMarkdown(
  api: Api,
  chatId: number,
  markdown: string,
  replyTo?: number,
  topic?: number,
): Promise<number[]> {
  const ids: number[] = [];
  try {
    for (const part of renderParts(markdown))
      ids.push(await sendHtml(api, chatId, part, ids.length ? undefined : replyTo, topic));
  } catch (err) {
    throw afterParts(err, ids.length);
  }
  return ids;
}

const threadGone = (err: unknown) =>
  err instanceof GrammyError && err.error_code === 400 && /message thread not found/i.test(err.description);

export class TelegramOutbound implements Outbound {
  constructor(private readonly api: Api) {}

  /** `address` is a chat, or a forum topic of it (address.ts): a reminder asked for in a topic goes there. */
  async sendText(address: string, text: string, opts: SendOptions = {}): Promise<number[]> {
    const to = parseAddress(address);
    if (!to) throw new Error(`not a Telegram chat: ${address}`);
    try {
      return await this.send(to.chat, text, opts, to.topic);
    } catch (err) {
      // The topic was deleted since: the reminder goes to the chat as a whole rather than nowhere.
      if (to.topic === undefined || !threadGone(err)) throw err;
      return this.send(to.chat, text, opts);
    }
  }

  private async send(chat: number, text: string, opts: SendOptions, topic?: number): Promise<number[]> {
    if (opts.markdown !== false) return sendMarkdown(this.api, chat, text, opts.replyTo, topic);
    const ids: number[] = [];
    try {
      for (const part of splitMessage(text))
        ids.push(
          (await this.api.sendMessage(chat, part, replyParams(ids.length ? undefined : opts.replyTo, topic)))
            .message_id,
        );
    } catch (err) {
      throw afterParts(err, ids.length);
    }
    return ids;
  }
}
