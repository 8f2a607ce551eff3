import type { Texts } from './en.js';

export const de: Texts = {
  help: 'Schreib mir eine Nachricht, und ich antworte. Meine Befehle:',
  welcome:
    'Hallo! Schreib mir eine Nachricht, und ich antworte.\n\n/reset beginnt ein neues Gespräch\n/help zeigt diese Nachricht',
  reset: 'Ein neues Gespräch hat begonnen.',
  resetAdminsOnly: 'Nur Administratoren dieser Gruppe können hier ein neues Gespräch beginnen.',
  textOnly: 'Ich kann bisher nur Textnachrichten lesen. Bitte schreib mir in Worten.',
  unsupported:
    'Ich kann Text, Fotos, Sprachnachrichten und Dokumente (PDF, Text, Markdown, CSV und JSON) lesen. Diese Art von Nachricht kann ich nicht lesen.',
  noVision:
    'Ich kann Text, Sprachnachrichten und Dokumente (PDF, Text, Markdown, CSV und JSON) lesen, aber mit diesem Modell keine Bilder. Bitte beschreib das Foto in Worten.',
  noAudio: 'Mit diesem Modell kann ich keine Sprachnachrichten anhören. Bitte schreib mir deine Nachricht in Worten.',
  audioTooLong: 'Diese Aufnahme ist länger als 10 Minuten; bitte schick eine kürzere.',
  fileTooBig: 'Diese Datei ist größer als 20 MB, mehr als ich lesen kann. Bitte schick eine kleinere.',
  unsupportedDocument: 'Ich kann PDF-, Text-, Markdown-, CSV- und JSON-Dokumente lesen; diese Datei ist nichts davon.',
  downloadFailed: 'Ich konnte die Datei nicht von Telegram laden. Bitte schick sie noch einmal.',
  notImage: 'Diese Datei ist kein Bild, das ich lesen kann (PNG, JPEG, GIF oder WebP).',
  emptyTranscript: 'In dieser Aufnahme konnte ich keine Worte erkennen.',
  transcriptionFailed:
    'Ich konnte die Aufnahme gerade nicht abschreiben. Bitte versuch es noch einmal oder schreib mir.',
  transcriptionRefused: 'Ich konnte die Aufnahme nicht abschreiben ({why}).',
  unreadableDocument: 'Ich konnte das Dokument nicht lesen: {why}.',
  documentCut: '{name} ist lang: Ich habe nur {what} gelesen.',
  notAllowed: 'Entschuldige, dieser Assistent spricht nur mit Menschen, die sein Besitzer zugelassen hat.',
  pairing:
    'Dieser Assistent ist privat. Um Zugang zu bitten, schick seinem Besitzer diesen Code: {code}\nEr gilt eine Stunde lang.',
  dailyLimit: 'Du hast deine Nachrichten für heute aufgebraucht. Bitte komm morgen wieder.',
  slowDown: 'Du schreibst schneller, als ich antworten kann. Bitte warte eine Minute.',
  queueFull:
    'Ich arbeite noch an deinen früheren Nachrichten. Schick diese noch einmal, sobald ich sie beantwortet habe.',
  credits:
    'Mein Nachrichtenkontingent für diesen Monat ist aufgebraucht, deshalb kann ich gerade nicht antworten. Bitte versuch es wieder, sobald es erneuert ist.',
  failed: 'Entschuldige, ich konnte gerade nicht antworten. Bitte versuch es gleich noch einmal.',
  limits: 'Dieses Gespräch ist zu lang geworden, um es zu behalten. Sende /reset, um ein neues zu beginnen.',
  commandStart: 'Das Gespräch beginnen',
  commandHelp: 'So sprichst du mit mir',
  commandReset: 'Ein neues Gespräch beginnen',
  commandMemory: 'Was ich mir über dich gemerkt habe',
  commandForget: 'Vergessen, was ich mir über dich gemerkt habe',
  commandReminders: 'Deine geplanten Nachrichten',
  commandTimezone: 'Deine Zeitzone',
  locale: 'de-DE',
  memoryHeader: 'Was ich mir über dich gemerkt habe:',
  memoryArchived: '{n} ältere Fakten sind archiviert und werden nicht mehr verwendet.',
  memoryForgetHint: '/forget löscht es.',
  memoryEmpty: 'Ich habe mir noch nichts über dich gemerkt.',
  forgotOne: 'Erledigt: Ich habe 1 Fakt über dich vergessen.',
  forgotMany: 'Erledigt: Ich habe {n} Fakten über dich vergessen.',
  nothingToForget: 'Es gab nichts zu vergessen.',
  remindersEmpty: 'Du hast keine geplanten Nachrichten.',
  remindersHeader: 'Deine geplanten Nachrichten:',
  remindersRepeats: 'wiederholt sich ({cron}), nächste',
  cancelUnknown: 'Keine geplante Nachricht von dir hat diese ID.',
  cancelled: 'Abgesagt.',
  timezoneIs:
    'Deine Zeitzone ist {zone}; dort ist es jetzt {time}. Zum Ändern sende /timezone und einen Namen wie Europe/Berlin.',
  timezoneUnknown:
    'Ich kenne deine Zeitzone noch nicht. Sende /timezone und einen Namen wie Europe/Berlin oder America/New_York.',
  timezoneSet: 'Deine Zeitzone ist jetzt {zone}; dort ist es {time}.',
  timezoneInvalid:
    '„{given}“ ist keine Zeitzone, die ich kenne. Nimm einen Namen wie Europe/Berlin oder America/New_York.',
  pairingAskOwner: '{name} (Telegram-ID {id}) möchte mit diesem Assistenten sprechen. Code {code}, eine Stunde gültig.',
  pairingApprove: 'Zulassen',
  pairingDeny: 'Ablehnen',
  pairingApproved: 'Zugelassen: {name} kann jetzt mit dem Assistenten sprechen.',
  pairingDenied: 'Abgelehnt: {name} bleibt draußen.',
  pairingGone: 'Diese Anfrage ist abgelaufen oder wurde schon entschieden.',
  pairingOwnerOnly: 'Nur der Besitzer kann das entscheiden.',
  pairingFailed: 'Das hat nicht geklappt. Bitte versuch es gleich noch einmal.',
  pairingWelcome: 'Der Besitzer hat dich zugelassen. Schreib mir eine Nachricht.',
  someone: 'Jemand',
};
