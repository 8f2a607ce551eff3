// Reads a download into memory, never more than a cap: the turn holds the bytes, nothing else does.

export class TooLargeError extends Error {
  constructor(readonly max: number) {
    super(`larger than ${Math.round(max / 1024 / 1024)} MB`);
    this.name = 'TooLargeError';
  }
}

/**
 * The body's bytes, or TooLargeError as soon as it passes `max` (the rest is not read). When the
 * size is announced (`max` is then exact), the bytes are copied into one buffer of that size as
 * they arrive: each network chunk is garbage at once instead of living until the last one, which
 * keeps 20 concurrent downloads from scattering their chunks through the host's malloc heap
 * (bench:media's residue after the documents).
 */
export async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy?(err?: Error): unknown },
  max: number,
  announced = false,
): Promise<Buffer> {
  const into = announced ? Buffer.allocUnsafeSlow(max) : undefined;
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of body) {
    if (received + chunk.length > max) {
      body.destroy?.();
      throw new TooLargeError(max);
    }
    if (into) into.set(chunk, received);
    else chunks.push(chunk);
    received += chunk.length;
  }
  if (into) return received === max ? into : into.subarray(0, received);
  return Buffer.concat(chunks, received);
}
