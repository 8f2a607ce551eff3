// Writing SSE with backpressure that gives up when the client does: waiting for 'drain' on a
// socket whose client went away would wait forever, holding the handler and its timers.
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Writes `text`; when the buffer is full, waits for drain or for `signal` (then rejects). */
export async function writeSse(out: Writable, text: string | Uint8Array, signal: AbortSignal): Promise<void> {
  if (signal.aborted || out.destroyed) throw signal.reason ?? new Error('the client went away');
  if (!out.write(text)) await once(out, 'drain', { signal });
}
