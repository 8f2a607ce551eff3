// A body refused for its size (413) is answered at once, but the client is still sending it: were
// the socket closed now, the unread bytes would make the kernel reset the connection and the
// sender would see EPIPE or ECONNRESET instead of the answer. So the rest of the body is read and
// thrown away first, and only then does the socket close (issue 28). Bounded: a body declared larger
// than DRAIN_MAX_BYTES, or still arriving after that many bytes or DRAIN_MAX_MS, is cut as before.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 10_000;

export function drainThenClose(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (req.complete || socket.destroyed || typeof socket.destroySoon !== 'function') return;
  if (Number(req.headers['content-length']) > DRAIN_MAX_BYTES) return;
  const closeSoon = socket.destroySoon;
  let release: () => void = () => {};
  const drained = new Promise<void>((resolve) => {
    release = resolve;
  });
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_MAX_BYTES) release();
  });
  req.once('end', () => release());
  req.once('error', () => release());
  socket.once('close', () => release());
  const timer = setTimeout(() => release(), DRAIN_MAX_MS);
  timer.unref();
  req.resume();
  // Node closes a "Connection: close" answer's socket with destroySoon() once the answer is out:
  // this one waits for the body to be read (an own property, for this socket only).
  socket.destroySoon = () => {
    void drained.then(() => {
      clearTimeout(timer);
      closeSoon.call(socket);
    });
  };
}
