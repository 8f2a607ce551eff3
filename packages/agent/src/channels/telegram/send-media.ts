// What an answer carries besides its words, in Telegram (DESIGN §9.5): the pictures and files the
// tools made (sendPhoto, sendDocument) and, when settings.voiceReplies asks for it, the answer
// spoken as voice notes (sendVoice, OGG/Opus), its text kept as the caption when it fits in one,
// else in the text messages beside it. Uploads are multipart, as the Bot API expects new files.
import { type Api, InputFile } from 'grammy';
import type { AssistantSettings } from '@berth/contracts/settings';
import type { OutFile } from '../../tools/tool.js';
import type { Speaker } from '../../model/media-out.js';
import { cantParse } from './outbound.js';
import { htmlToPlain } from './render/index.js';

/** Telegram's caption limit (characters of the shown text). */
export const CAPTION_MAX = 1024;
/** What one /audio/speech call may say (OpenAI's limit); longer answers are spoken in parts. */
export const SPEECH_PART_CHARS = 4096;
/** Parts one answer is spoken in at most: beyond ~16,000 characters the rest stays text only. */
export const SPEECH_MAX_PARTS = 4;

export type VoiceReplies = NonNullable<AssistantSettings['voiceReplies']>;

/** Whether this answer is also spoken: always, or when the user's own message was a voice note. */
export function wantsVoice(mode: VoiceReplies | undefined, spokenTo: boolean): boolean {
  return mode === 'always' || (mode === 'when-spoken-to' && spokenTo);
}

const replyParams = (replyTo?: number) => (replyTo ? { reply_parameters: { message_id: replyTo } } : {});

/** The answer's HTML parts as speakable text, cut at sentence ends into parts of at most `max`. */
export function speechParts(htmlParts: string[], max = SPEECH_PART_CHARS, maxParts = SPEECH_MAX_PARTS): string[] {
  const text = htmlParts
    .map(htmlToPlain)
    .join('\n')
    // Links and bare addresses are read out badly; the text beside the voice note keeps them.
    .replace(/https?:\/\/\S+/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
  const parts: string[] = [];
  let rest = text;
  while (rest && parts.length < maxParts) {
    if ([...rest].length <= max) {
      parts.push(rest);
      break;
    }
    const window = [...rest].slice(0, max).join('');
    // The last sentence or line end in the window, else the last space; a word is never cut.
    const cut = Math.max(
      window.lastIndexOf('. '),
      window.lastIndexOf('\n'),
      window.lastIndexOf('! '),
      window.lastIndexOf('? '),
    );
    const at = cut > max / 2 ? cut + 1 : window.lastIndexOf(' ') > 0 ? window.lastIndexOf(' ') : window.length;
    parts.push(window.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  // Nothing to say aloud (an answer of only a link, an emoji or "…"): no speech call.
  return parts.filter((p) => /[\p{L}\p{N}]/u.test(p));
}

/**
 * Speaks `parts` as voice notes, the first with `caption` (HTML) when given. Answers whether the
 * first one was sent; a failed speech call (allowance spent meanwhile, provider down) sends nothing
 * more and is the caller's to fall back from: the text is never lost to it.
 */
export async function sendVoiceParts(
  api: Api,
  chatId: number,
  speaker: Speaker,
  parts: string[],
  signal: AbortSignal,
  opts: { caption?: string; replyTo?: number } = {},
): Promise<boolean> {
  for (const [i, part] of parts.entries()) {
    let audio: Uint8Array;
    try {
      audio = await speaker.speak(part, signal);
    } catch {
      return i > 0;
    }
    if (signal.aborted) return i > 0;
    const file = () =>
      new InputFile(Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength), `answer-${i + 1}.ogg`);
    const first = i === 0;
    const base = first ? replyParams(opts.replyTo) : {};
    if (first && opts.caption) {
      try {
        await api.sendVoice(chatId, file(), { ...base, caption: opts.caption, parse_mode: 'HTML' });
      } catch (err) {
        if (!cantParse(err)) return false;
        await api.sendVoice(chatId, file(), { ...base, caption: htmlToPlain(opts.caption) });
      }
    } else {
      try {
        await api.sendVoice(chatId, file(), base);
      } catch {
        return i > 0;
      }
    }
  }
  return parts.length > 0;
}

/** The pictures (sendPhoto) and files (sendDocument) of an answer, in the order they were made. */
export async function sendFiles(api: Api, chatId: number, files: OutFile[] | undefined, replyTo?: number) {
  for (const f of files ?? []) {
    const input = new InputFile(Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength), f.name);
    if (f.kind === 'photo') await api.sendPhoto(chatId, input, replyParams(replyTo));
    else await api.sendDocument(chatId, input, replyParams(replyTo));
  }
}
