// grammY's Bot API calls (replies, drafts, "typing…", edits, files sent) on an undici pool of
// their own instead of node-fetch on an http.Agent. At 1,000 chats streaming at once node-fetch was the
// largest part of a call's CPU, and http.Agent keeps at most 256 idle sockets for all of the host's
// bots, so every burst closed the rest and opened them again on the next one (decision
// 0034-bot-api-on-undici). grammY's own path is kept around it: its transformers (pacing, retries,
// the error counter), its timeout and its error types.
import type { Readable } from 'node:stream';
import type { ApiClientOptions } from 'grammy';
import type { Dispatcher } from 'undici';
import { loadUndici } from '../../http/undici.js';

/**
 * How long an idle connection is kept. A server that names no keep-alive time in its answers (as
 * nginx does by default) gets undici's default of 4 s: a chat's next message after a pause, or
 * "typing…" repeated every 4.5 s, would open a new TLS connection each time. The host's bots share
 * these connections.
 */
export const BOT_API_IDLE_MS = 20_000;

let pool: Dispatcher | undefined;

/** What grammY passes to its `fetch`: a JSON string, or a multipart stream when a file is uploaded. */
interface BotApiInit {
  method: string;
  headers: Record<string, string>;
  body: string | Readable;
  signal: AbortSignal;
}

/** grammY's `client.fetch`: grammY reads nothing of the answer but its JSON. */
export const botApiFetch = (async (url: string, init: BotApiInit) => {
  const { Agent, request } = await loadUndici();
  pool ??= new Agent({ keepAliveTimeout: BOT_API_IDLE_MS, keepAliveMaxTimeout: BOT_API_IDLE_MS });
  try {
    const res = await request(url, {
      dispatcher: pool,
      method: init.method as 'POST',
      headers: init.headers,
      body: init.body,
      signal: init.signal,
    });
    return { json: () => res.body.json() };
  } catch (err) {
    // Node's URL errors carry the whole URL as `input`, and a Bot API URL holds the bot's token.
    if (err && typeof err === 'object' && 'input' in err) delete (err as { input?: unknown }).input;
    throw err;
  }
}) as unknown as NonNullable<ApiClientOptions['fetch']>;
