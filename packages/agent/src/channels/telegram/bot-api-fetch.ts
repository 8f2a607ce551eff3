// grammY's Bot API calls (replies, drafts, "typing…", edits, files sent) on undici's shared pool
// instead of node-fetch on an http.Agent. At 1,000 chats streaming at once node-fetch was the
// largest part of a call's CPU, and http.Agent keeps at most 256 idle sockets for all of the host's
// bots, so every burst closed the rest and opened them again on the next one (decision
// 0034-bot-api-on-undici). grammY's own path is kept around it: its transformers (pacing, retries,
// the error counter), its timeout and its error types.
import type { Readable } from 'node:stream';
import type { ApiClientOptions } from 'grammy';
import { loadUndici } from './undici.js';

/** What grammY passes to its `fetch`: a JSON string, or a multipart stream when a file is uploaded. */
interface BotApiInit {
  method: string;
  headers: Record<string, string>;
  body: string | Readable;
  signal: AbortSignal;
}

/** grammY's `client.fetch`: grammY reads nothing of the answer but its JSON. */
export const botApiFetch = (async (url: string, init: BotApiInit) => {
  const { request } = await loadUndici();
  const res = await request(url, {
    method: init.method as 'POST',
    headers: init.headers,
    body: init.body,
    signal: init.signal,
  });
  return { json: () => res.body.json() };
}) as unknown as NonNullable<ApiClientOptions['fetch']>;
