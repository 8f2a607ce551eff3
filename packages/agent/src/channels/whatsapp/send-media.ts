// What an answer carries besides its words, on WhatsApp (DESIGN §9.5): the pictures and files the
// tools made, and the answer spoken as a voice note when settings.voiceReplies asks for it. Each
// file is uploaded (POST /{phone-number-id}/media) and sent by its media id. A failed speech call
// sends no voice note; the text has gone out already, so nothing is lost to it.
import type { AssistantSettings } from '@berth/contracts/settings';
import type { OutFile } from '../../core/events.js';
import type { Speaker } from '../../model/media-out.js';
import type { Graph } from './graph.js';

/** What one speech call may say (OpenAI's limit); a longer answer is spoken up to it. */
const SPEECH_MAX_CHARS = 4096;

type VoiceReplies = NonNullable<AssistantSettings['voiceReplies']>;

/** Whether this answer is also spoken: always, or when the user's own message was a voice note. */
export const wantsVoice = (mode: VoiceReplies | undefined, spokenTo: boolean) =>
  mode === 'always' || (mode === 'when-spoken-to' && spokenTo);

/** WhatsApp's rendered text as something to say aloud: no markers, no addresses. */
export function speakable(parts: string[]): string {
  const text = parts
    .join('\n')
    .replace(/```/g, '')
    .replace(/[*_~]/g, '')
    .replace(/https?:\/\/\S+/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
  return [...text].slice(0, SPEECH_MAX_CHARS).join('');
}

export async function sendFiles(graph: Graph, to: string, files: readonly OutFile[]) {
  for (const f of files) {
    const id = await graph.upload(f.bytes, f.mimeType, f.name);
    await graph.send(
      f.kind === 'photo'
        ? { recipient_type: 'individual', to, type: 'image', image: { id } }
        : { recipient_type: 'individual', to, type: 'document', document: { id, filename: f.name } },
    );
  }
}

/** The answer as one voice note (OGG/Opus, which WhatsApp plays as one); false when it was not spoken. */
export async function sendVoice(graph: Graph, to: string, speaker: Speaker, text: string, signal: AbortSignal) {
  if (!/[\p{L}\p{N}]/u.test(text)) return false;
  let audio: Uint8Array;
  try {
    audio = await speaker.speak(text, signal);
  } catch {
    return false;
  }
  const id = await graph.upload(audio, 'audio/ogg', 'answer.ogg');
  await graph.send({ recipient_type: 'individual', to, type: 'audio', audio: { id } });
  return true;
}
