// An https image URL a chat API client sends is fetched here, through the public-only dispatcher
// (every address checked and pinned at connect), and becomes a data URL: models and the gateway
// only ever see data URLs, and a private address is never reached on a client's behalf.
import type { Dispatcher } from 'undici';
import { deadline } from '@berth/contracts/deadline';
import { IMAGE_MAX_BYTES, imageDataUrl, sniffImage } from '@berth/contracts/chat/image';
import { AgentError } from '../errors.js';
import { readCapped, TooLargeError } from './read-capped.js';
import { loadUndici } from '../http/undici.js';

const TIMEOUT_MS = 10_000;
let shared: Dispatcher | undefined;

export async function fetchImage(
  raw: string,
  opts: { allowPrivate?: boolean; signal?: AbortSignal; timeoutMs?: number } = {},
) {
  const url = new URL(raw);
  const [{ request }, net] = await Promise.all([loadUndici(), import('@berth/contracts/net')]);
  const refuse = (why: string) => new AgentError('INVALID_REQUEST', `The image at ${url.hostname} ${why}.`);
  shared ??= net.createPublicOnlyAgent({ allowPrivate: opts.allowPrivate, timeoutMs: TIMEOUT_MS });
  // Held by its own timer until the finally below (contracts/deadline.ts says why).
  const limit = deadline(opts.timeoutMs ?? TIMEOUT_MS, opts.signal);
  const signal = limit.signal;
  try {
    if (!opts.allowPrivate) net.assertPublicHost(url);
    // No redirects: a redirect could point anywhere, and an image URL a client sends is final.
    const res = await request(url, { dispatcher: shared, signal, headers: { accept: 'image/*' } });
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => {});
      throw refuse(`answered HTTP ${res.statusCode}`);
    }
    const bytes = await readCapped(res.body, IMAGE_MAX_BYTES);
    const type = sniffImage(bytes);
    if (!type) throw refuse('is not a PNG, JPEG, GIF or WebP image');
    return imageDataUrl(type, bytes);
  } catch (err) {
    if (err instanceof AgentError) throw err;
    if (err instanceof TooLargeError) throw refuse(`is ${err.message}`);
    if (err instanceof net.BlockedAddressError || (err as { cause?: unknown }).cause instanceof net.BlockedAddressError)
      throw refuse('is not at a public address');
    throw refuse(`could not be fetched (${(err as Error).message})`);
  } finally {
    limit.clear();
  }
}

/** Messages with every https image turned into a data URL. */
export async function resolveImages<M extends { images?: string[] }>(
  messages: M[],
  opts: { allowPrivate?: boolean; signal?: AbortSignal },
): Promise<M[]> {
  if (!messages.some((m) => m.images?.some((u) => !u.startsWith('data:')))) return messages;
  return Promise.all(
    messages.map(async (m) =>
      m.images
        ? { ...m, images: await Promise.all(m.images.map((u) => (u.startsWith('data:') ? u : fetchImage(u, opts)))) }
        : m,
    ),
  );
}
