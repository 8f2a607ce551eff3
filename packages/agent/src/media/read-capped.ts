// Reads a download into memory, never more than a cap: the turn holds the bytes, nothing else does.

export class TooLargeError extends Error {
  constructor(readonly max: number) {
    super(`larger than ${Math.round(max / 1024 / 1024)} MB`);
    this.name = 'TooLargeError';
  }
}

/** The body's bytes, or TooLargeError as soon as it passes `max` (the rest is not read). */
export async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy?(err?: Error): unknown },
  max: number,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of body) {
    received += chunk.length;
    if (received > max) {
      body.destroy?.();
      throw new TooLargeError(max);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, received);
}
