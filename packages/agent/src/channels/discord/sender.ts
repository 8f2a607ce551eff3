// Discord's REST calls the channel makes, on the bot's REST client (its rate-limit buckets and 429
// waits are the library's). Nothing the model writes pings anyone: allowed_mentions is empty, so
// an "@everyone" in an answer shows as text. Also the channel's Outbound port for reminders.
import type { REST } from '@discordjs/rest';
import type { Outbound, SendOptions } from '../channel.js';
import { packBlocks } from '../markdown/split.js';
import { DISCORD_MAX_MESSAGE, escapeDiscord, renderDiscord } from './render.js';

const NO_PINGS = { parse: [] as string[], replied_user: true };

export class DiscordSender {
  constructor(
    private readonly rest: REST,
    private readonly signal: AbortSignal,
  ) {}

  /** Posts one message (≤ 2,000 characters); resolves with its id. */
  async send(channelId: string, content: string, replyTo?: string): Promise<string> {
    const body = {
      content,
      allowed_mentions: NO_PINGS,
      ...(replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } } : {}),
    };
    const m = (await this.call((signal) => this.rest.post(`/channels/${channelId}/messages`, { body, signal }))) as {
      id: string;
    };
    return m.id;
  }

  async edit(channelId: string, messageId: string, content: string): Promise<void> {
    await this.call((signal) =>
      this.rest.patch(`/channels/${channelId}/messages/${messageId}`, {
        body: { content, allowed_mentions: NO_PINGS },
        signal,
      }),
    );
  }

  async typing(channelId: string): Promise<void> {
    await this.call((signal) => this.rest.post(`/channels/${channelId}/typing`, { signal }));
  }

  /**
   * One call on a signal of its own, aborted with the channel's: the REST client adds an abort
   * listener to the signal it is given and never removes it, so the channel's own signal would
   * gather one per message for as long as the bot runs.
   */
  private async call<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const own = new AbortController();
    const abort = () => own.abort(this.signal.reason);
    if (this.signal.aborted) abort();
    else this.signal.addEventListener('abort', abort, { once: true });
    try {
      return await fn(own.signal);
    } finally {
      this.signal.removeEventListener('abort', abort);
    }
  }
}

/** Sending without being asked (reminders, scheduled tasks): the text rendered and split. */
export class DiscordOutbound implements Outbound {
  constructor(private readonly sender: DiscordSender) {}

  async sendText(chatId: string, text: string, opts: SendOptions = {}): Promise<number[]> {
    const parts =
      opts.markdown === false
        ? packBlocks([{ kind: 'text', text: escapeDiscord(text) }], DISCORD_MAX_MESSAGE)
        : renderDiscord(text);
    // Discord's ids do not fit a number: the port's ids are for Telegram's replies, none here.
    for (const part of parts) await this.sender.send(chatId, part);
    return [];
  }
}
