import type { Texts } from './en.js';

export const fr: Texts = {
  help: 'Envoyez-moi un message et je vous répondrai. Mes commandes :',
  welcome:
    'Bonjour ! Envoyez-moi un message et je vous répondrai.\n\n/reset commence une nouvelle conversation\n/help affiche ce message',
  reset: 'Une nouvelle conversation a commencé.',
  resetAdminsOnly: 'Seul un administrateur de ce groupe peut commencer une nouvelle conversation ici.',
  textOnly: 'Pour l’instant, je ne sais lire que les messages texte. Écrivez-moi avec des mots, s’il vous plaît.',
  unsupported:
    'Je sais lire le texte, les photos, les messages vocaux et les documents (PDF, texte, Markdown, CSV et JSON). Je ne sais pas lire ce type de message.',
  noVision:
    'Je sais lire le texte, les messages vocaux et les documents (PDF, texte, Markdown, CSV et JSON), mais pas les images avec ce modèle. Décris la photo avec des mots, s’il te plaît.',
  noAudio: 'Avec ce modèle, je ne peux pas écouter les messages vocaux. Écris-moi ton message, s’il te plaît.',
  audioTooLong: 'Cet enregistrement dure plus de 10 minutes ; envoie-en un plus court, s’il te plaît.',
  fileTooBig: 'Ce fichier dépasse 20 Mo, c’est plus que je ne peux lire. Envoie-en un plus petit, s’il te plaît.',
  unsupportedDocument:
    'Je sais lire les documents PDF, texte, Markdown, CSV et JSON ; ce fichier n’est rien de tout cela.',
  downloadFailed: 'Je n’ai pas pu télécharger ce fichier depuis Telegram. Renvoie-le, s’il te plaît.',
  notImage: 'Ce fichier n’est pas une image que je sais lire (PNG, JPEG, GIF ou WebP).',
  emptyTranscript: 'Je n’ai distingué aucun mot dans cet enregistrement.',
  transcriptionFailed:
    'Je n’ai pas pu transcrire cet enregistrement pour l’instant. Réessaie, ou écris-moi ton message.',
  transcriptionRefused: 'Je n’ai pas pu transcrire cet enregistrement ({why}).',
  unreadableDocument: 'Je n’ai pas pu lire ce document : {why}.',
  documentCut: '{name} est long : je n’en ai lu que {what}.',
  discordDownloadFailed: 'Je n’ai pas pu télécharger ce fichier depuis Discord. Renvoie-le, s’il te plaît.',
  imageTooBig:
    'Cette image dépasse 5 Mo, c’est plus que je ne peux regarder. Envoie-en une plus petite, s’il te plaît.',
  tooManyImages: 'Je peux regarder jusqu’à 4 images à la fois. Envoie-en moins, s’il te plaît.',
  notAllowed: 'Désolé, cet assistant ne parle qu’aux personnes que son propriétaire a autorisées.',
  pairing:
    'Cet assistant est privé. Pour demander l’accès, envoie ce code à son propriétaire : {code}\nIl est valable une heure.',
  dailyLimit: 'Tu as atteint ta limite de messages pour aujourd’hui. Reviens demain, s’il te plaît.',
  slowDown: 'Vous envoyez des messages plus vite que je ne peux répondre. Merci de patienter une minute.',
  queueFull: "Je traite encore vos messages précédents. Renvoyez celui-ci quand j'y aurai répondu.",
  credits:
    'J’ai épuisé mon quota de messages pour ce mois-ci, je ne peux donc pas répondre pour le moment. Réessayez quand il sera renouvelé.',
  failed: 'Désolé, je n’ai pas pu répondre pour le moment. Réessayez dans un instant.',
  limits:
    'Cette conversation est devenue trop longue pour que je la garde. Envoyez /reset pour en commencer une nouvelle.',
  commandStart: 'Commencer la conversation',
  commandHelp: 'Comment me parler',
  commandReset: 'Commencer une nouvelle conversation',
  commandMemory: 'Ce dont je me souviens à ton sujet',
  commandForget: 'Oublier ce dont je me souviens à ton sujet',
  commandReminders: 'Tes messages programmés',
  commandTimezone: 'Votre fuseau horaire',
  locale: 'fr-FR',
  memoryHeader: 'Ce que je retiens de vous :',
  memoryArchived: '{n} faits plus anciens sont archivés et ne sont plus utilisés.',
  memoryForgetHint: '/forget efface tout.',
  memoryEmpty: 'Je ne retiens encore rien de vous.',
  forgotOne: "C'est fait : j'ai oublié 1 fait sur vous.",
  forgotMany: "C'est fait : j'ai oublié {n} faits sur vous.",
  nothingToForget: "Il n'y avait rien à oublier.",
  remindersEmpty: "Vous n'avez aucun message programmé.",
  remindersHeader: 'Vos messages programmés :',
  remindersRepeats: 'se répète ({cron}), prochain',
  cancelUnknown: "Aucun de vos messages programmés n'a cet identifiant.",
  cancelled: 'Annulé.',
  timezoneIs:
    "Votre fuseau horaire est {zone} ; il y est {time}. Pour le changer, envoyez /timezone suivi d'un nom comme Europe/Paris.",
  timezoneUnknown:
    "Je ne connais pas encore votre fuseau horaire. Envoyez /timezone suivi d'un nom comme Europe/Paris ou America/Montreal.",
  timezoneSet: 'Votre fuseau horaire est maintenant {zone} ; il y est {time}.',
  timezoneInvalid:
    "« {given} » n'est pas un fuseau horaire que je connais. Utilisez un nom comme Europe/Paris ou America/Montreal.",
  pairingAskOwner:
    '{name} (identifiant Telegram {id}) demande à parler à cet assistant. Code {code}, valable une heure.',
  pairingApprove: 'Accepter',
  pairingDeny: 'Refuser',
  pairingApproved: "Accepté : {name} peut maintenant parler à l'assistant.",
  pairingDenied: 'Refusé : {name} reste dehors.',
  pairingGone: 'Cette demande a expiré ou a déjà été traitée.',
  pairingOwnerOnly: 'Seul le propriétaire peut en décider.',
  pairingFailed: "Cela n'a pas abouti. Veuillez réessayer dans un instant.",
  pairingWelcome: 'Le propriétaire vous a donné accès. Envoyez-moi un message.',
  someone: "Quelqu'un",
  cancelButton: 'Annuler « {text} »',
};
