import type { Texts } from './en.js';

export const de: Texts = {
  help: 'Schreib mir eine Nachricht, und ich antworte.\n\n/reset beginnt ein neues Gespräch\n/help zeigt diese Nachricht',
  welcome:
    'Hallo! Schreib mir eine Nachricht, und ich antworte.\n\n/reset beginnt ein neues Gespräch\n/help zeigt diese Nachricht',
  reset: 'Ein neues Gespräch hat begonnen.',
  resetAdminsOnly: 'Nur Administratoren dieser Gruppe können hier ein neues Gespräch beginnen.',
  textOnly: 'Ich kann bisher nur Textnachrichten lesen. Bitte schreib mir in Worten.',
  slowDown: 'Du schreibst schneller, als ich antworten kann. Bitte warte eine Minute.',
  credits:
    'Mein Nachrichtenkontingent für diesen Monat ist aufgebraucht, deshalb kann ich gerade nicht antworten. Bitte versuch es wieder, sobald es erneuert ist.',
  failed: 'Entschuldige, ich konnte gerade nicht antworten. Bitte versuch es gleich noch einmal.',
  limits: 'Dieses Gespräch ist zu lang geworden, um es zu behalten. Sende /reset, um ein neues zu beginnen.',
  commandStart: 'Das Gespräch beginnen',
  commandHelp: 'So sprichst du mit mir',
  commandReset: 'Ein neues Gespräch beginnen',
};
