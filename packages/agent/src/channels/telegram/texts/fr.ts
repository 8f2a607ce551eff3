import type { Texts } from './en.js';

export const fr: Texts = {
  help: 'Envoyez-moi un message et je vous répondrai.\n\n/reset commence une nouvelle conversation\n/help affiche ce message',
  welcome:
    'Bonjour ! Envoyez-moi un message et je vous répondrai.\n\n/reset commence une nouvelle conversation\n/help affiche ce message',
  reset: 'Une nouvelle conversation a commencé.',
  resetAdminsOnly: 'Seul un administrateur de ce groupe peut commencer une nouvelle conversation ici.',
  textOnly: 'Pour l’instant, je ne sais lire que les messages texte. Écrivez-moi avec des mots, s’il vous plaît.',
  slowDown: 'Vous envoyez des messages plus vite que je ne peux répondre. Merci de patienter une minute.',
  credits:
    'J’ai épuisé mon quota de messages pour ce mois-ci, je ne peux donc pas répondre pour le moment. Réessayez quand il sera renouvelé.',
  failed: 'Désolé, je n’ai pas pu répondre pour le moment. Réessayez dans un instant.',
  limits:
    'Cette conversation est devenue trop longue pour que je la garde. Envoyez /reset pour en commencer une nouvelle.',
  commandStart: 'Commencer la conversation',
  commandHelp: 'Comment me parler',
  commandReset: 'Commencer une nouvelle conversation',
};
