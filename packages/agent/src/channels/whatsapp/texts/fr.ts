import type { WhatsAppTexts } from './en.js';

export const fr: WhatsAppTexts = {
  unsupported:
    'Je sais lire le texte, les photos, les messages vocaux et les documents ; ce type de message, je ne sais pas le lire.',
  noVision: 'Avec ce modèle, je ne peux pas regarder les images. Décris-la plutôt avec des mots.',
  noAudio: 'Avec ce modèle, je ne peux pas écouter les messages vocaux. Écris-moi plutôt ton message.',
  fileTooBig: 'Ce fichier est plus gros que ce que je peux lire. Envoie-en un plus petit.',
  unsupportedDocument:
    'Je sais lire les documents PDF, texte, Markdown, CSV et JSON ; ce fichier n’est aucun de ceux-là.',
  downloadFailed: 'Je n’ai pas pu télécharger ce fichier depuis WhatsApp. Envoie-le à nouveau.',
  notImage: 'Ce fichier n’est pas une image que je sais lire (PNG, JPEG, GIF ou WebP).',
  emptyTranscript: 'Je n’ai reconnu aucun mot dans cet enregistrement.',
  transcriptionFailed:
    'Je n’ai pas pu transcrire cet enregistrement pour l’instant. Réessaie, ou écris-moi ton message.',
  unreadableDocument: 'Je n’ai pas pu lire ce document : {why}.',
  documentCut: '{name} est long : je n’en ai lu que {what}.',
  slowDown: 'Tu envoies des messages plus vite que je ne peux répondre. Attends une minute, s’il te plaît.',
  credits: 'Cet assistant a épuisé ses crédits pour le moment. Réessaie plus tard.',
  failed: 'Désolé, je n’ai pas pu répondre pour l’instant. Réessaie dans un moment.',
  notAllowed: 'Désolé, cet assistant ne parle qu’aux personnes que son propriétaire a autorisées.',
  dailyLimit: 'Tu as atteint ton nombre de messages pour aujourd’hui. Reviens demain.',
  reset: 'Nouvelle conversation commencée.',
  outsideWindow:
    'WhatsApp ne me laisse t’écrire que dans les 24 heures qui suivent ton dernier message, je ne peux donc rien envoyer le {at} (ta fenêtre se ferme le {closes}). Choisis un moment avant.',
  repeatsOutsideWindow:
    'WhatsApp ne me laisse t’écrire que dans les 24 heures qui suivent ton dernier message, un message répété cesserait donc de t’arriver ; demande plutôt un seul rappel avant le {closes}.',
  locale: 'fr-FR',
};
