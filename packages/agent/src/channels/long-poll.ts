// getUpdates, the one Bot API call a bot makes all the time, on its own undici client. grammY's
// generic call path (node-fetch, an AbortController polyfill, a timeout and three promises per
// call) holds about 14.5 KB of heap for each long poll in flight, this about 4.5 KB: at 10,000
// bots a poll starts every 2.5 ms and lives 25 s, so what it holds is what the young generation
// copies and promotes (docs/decisions/0015, "Third pass"). Everything else a bot does (getMe,
// replies, commands, update handling) stays with grammY, and failures keep grammY's error types.
import { GrammyError } from 'grammy';
import type { Update } from 'grammy/types';
import type { Client } from 'undici';

// undici loads with the first bot that polls: an empty host never carries it.
type Undici = typeof import('undici');
let loading: Promise<Undici> | undefined;
const loadUndici = () => (loading ??= import('undici'));

type ApiAnswer =
  | { ok: true; result: Update[] }
  | { ok: false; error_code: number; description: string; parameters?: { retry_after?: number } };

export class LongPoll {
  private client: Client | undefined;
  private readonly origin: string;
  private readonly path: string;

  /** `apiRoot` as grammY takes it (origin and optional path, no trailing slash). */
  constructor(
    apiRoot: string,
    token: string,
    private readonly timeoutS: number,
  ) {
    const root = new URL(apiRoot);
    this.origin = root.origin;
    this.path = `${root.pathname.replace(/\/$/, '')}/bot${token}/getUpdates`;
  }

  /** Telegram's refusals throw GrammyError (error_code, parameters) like grammY's own calls. */
  async getUpdates(offset: number, signal: AbortSignal): Promise<Update[]> {
    const { Client } = await loadUndici();
    // As grammY did: give up on an answer 15 s after Telegram should have sent one.
    const limitMs = (this.timeoutS + 15) * 1000;
    this.client ??= new Client(this.origin, { headersTimeout: limitMs, bodyTimeout: limitMs });
    const payload = { offset, timeout: this.timeoutS, allowed_updates: ['message'] };
    const res = await this.client.request({
      path: this.path,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal,
    });
    const answer = (await res.body.json()) as ApiAnswer;
    if (answer.ok) return answer.result;
    throw new GrammyError("Call to 'getUpdates' failed!", answer, 'getUpdates', payload);
  }

  close() {
    const client = this.client;
    this.client = undefined;
    return client?.destroy().catch(() => {});
  }
}
