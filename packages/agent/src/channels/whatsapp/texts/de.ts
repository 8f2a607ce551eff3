import type { WhatsAppTexts } from './en.js';

export const de: WhatsAppTexts = {
  unsupported:
    'Ich kann Text, Fotos, Sprachnachrichten und Dokumente lesen; diese Art von Nachricht kann ich nicht lesen.',
  noVision: 'Mit diesem Modell kann ich keine Bilder ansehen. Bitte beschreib es in Worten.',
  noAudio: 'Mit diesem Modell kann ich keine Sprachnachrichten anhören. Bitte schreib mir deine Nachricht in Worten.',
  fileTooBig: 'Diese Datei ist größer, als ich lesen kann. Bitte schick eine kleinere.',
  unsupportedDocument: 'Ich kann PDF-, Text-, Markdown-, CSV- und JSON-Dokumente lesen; diese Datei ist nichts davon.',
  downloadFailed: 'Ich konnte die Datei nicht von WhatsApp laden. Bitte schick sie noch einmal.',
  notImage: 'Diese Datei ist kein Bild, das ich lesen kann (PNG, JPEG, GIF oder WebP).',
  emptyTranscript: 'In dieser Aufnahme konnte ich keine Worte erkennen.',
  transcriptionFailed:
    'Ich konnte die Aufnahme gerade nicht abschreiben. Bitte versuch es noch einmal oder schreib mir deine Nachricht.',
  unreadableDocument: 'Ich konnte das Dokument nicht lesen: {why}.',
  documentCut: '{name} ist lang: Ich habe nur {what} gelesen.',
  slowDown: 'Du schreibst schneller, als ich antworten kann. Bitte warte eine Minute.',
  credits: 'Dieser Assistent hat sein Guthaben vorerst aufgebraucht. Bitte versuch es später noch einmal.',
  failed: 'Entschuldige, ich konnte gerade nicht antworten. Bitte versuch es gleich noch einmal.',
  notAllowed: 'Entschuldige, dieser Assistent spricht nur mit Menschen, die sein Besitzer zugelassen hat.',
  dailyLimit: 'Du hast deine Nachrichten für heute aufgebraucht. Bitte komm morgen wieder.',
  reset: 'Ein neues Gespräch hat begonnen.',
  outsideWindow:
    'WhatsApp erlaubt mir, dir nur innerhalb von 24 Stunden nach deiner letzten Nachricht zu schreiben, deshalb kann ich am {at} nichts senden (dein Zeitfenster schließt am {closes}). Wähl eine Zeit davor.',
  repeatsOutsideWindow:
    'WhatsApp erlaubt mir, dir nur innerhalb von 24 Stunden nach deiner letzten Nachricht zu schreiben, deshalb würde dich eine wiederholte Nachricht bald nicht mehr erreichen; bitte stattdessen um eine einzelne Erinnerung vor {closes}.',
  locale: 'de-DE',
};
