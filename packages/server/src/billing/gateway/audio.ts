// What a transcription costs is known before the router is called: the audio's length is read
// from its own container (Ogg/Opus voice notes, MP3, M4A, WAV, WebM, FLAC) by music-metadata, so
// the hold covers the call exactly and the allowance cannot be overshot by a file that lies.

/** Longest audio the gateway transcribes in one call (the agent refuses longer ones first). */
export const MAX_TRANSCRIPTION_SECONDS = 20 * 60;
/** The router's own upload limit for /audio/transcriptions. */
export const TRANSCRIPTION_BODY_LIMIT = 25 * 1024 * 1024;

/** Whole seconds of audio, or undefined when the bytes are no audio file music-metadata can time. */
export async function audioSeconds(bytes: Uint8Array, mimeType: string | undefined): Promise<number | undefined> {
  const { parseBuffer } = await import('music-metadata');
  try {
    const meta = await parseBuffer(bytes, mimeType ? { mimeType } : undefined, { duration: true, skipCovers: true });
    const d = meta.format.duration;
    return typeof d === 'number' && Number.isFinite(d) && d > 0 ? Math.ceil(d) : undefined;
  } catch {
    return undefined;
  }
}

/** Nano-dollars of `seconds` at a price per minute, rounded up. */
export const transcriptionNano = (pricePerMinute: number, seconds: number) =>
  Math.ceil((pricePerMinute * 1_000_000_000 * seconds) / 60);
