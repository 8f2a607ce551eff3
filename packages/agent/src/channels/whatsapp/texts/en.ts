// Berth's own sentences on WhatsApp in English (not the model's words): the catalogue every other
// language follows key for key. Apart from Telegram's, which names its commands and Telegram itself.
export const en = {
  unsupported: 'I can read text, photos, voice notes and documents; this kind of message is not one I can read.',
  noVision: 'I cannot look at pictures with this model. Please describe it in words.',
  noAudio: 'I cannot listen to voice notes with this model. Please write your message in words.',
  fileTooBig: 'That file is larger than I can read. Please send a smaller one.',
  unsupportedDocument: 'I can read PDF, plain text, Markdown, CSV and JSON documents; this file is none of those.',
  downloadFailed: 'I could not download that file from WhatsApp. Please send it again.',
  notImage: 'That file is not a picture I can read (PNG, JPEG, GIF or WebP).',
  emptyTranscript: 'I could not make out any words in that recording.',
  transcriptionFailed: 'I could not transcribe that recording just now. Please try again, or write your message.',
  unreadableDocument: 'I could not read that document: {why}.',
  documentCut: '{name} is long: I read only {what}.',
  slowDown: 'You are sending messages faster than I can answer. Please wait a minute.',
  credits: 'This assistant has used up its credits for now. Please try again later.',
  failed: 'Sorry, I could not answer just now. Please try again in a moment.',
  notAllowed: 'Sorry, this assistant only talks to the people its owner has allowed.',
  dailyLimit: 'You have reached your messages for today. Please come back tomorrow.',
  reset: 'Started a new conversation.',
  outsideWindow:
    'WhatsApp lets me write to you only within 24 hours of your last message, so I cannot send anything at {at} (your window closes at {closes}). Choose a time before then.',
  repeatsOutsideWindow:
    'WhatsApp lets me write to you only within 24 hours of your last message, so a repeating message would stop reaching you; ask for a single reminder before {closes} instead.',
  /** The BCP 47 locale the window's times are written in. */
  locale: 'en-GB',
};

export type WhatsAppTexts = typeof en;
