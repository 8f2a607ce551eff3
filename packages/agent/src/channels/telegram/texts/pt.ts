import type { Texts } from './en.js';

export const pt: Texts = {
  help: 'Envie-me uma mensagem e eu respondo.\n\n/reset começa uma nova conversa\n/help mostra esta mensagem',
  welcome: 'Olá! Envie-me uma mensagem e eu respondo.\n\n/reset começa uma nova conversa\n/help mostra esta mensagem',
  reset: 'Comecei uma nova conversa.',
  resetAdminsOnly: 'Só um administrador deste grupo pode começar uma nova conversa aqui.',
  textOnly: 'Por enquanto só consigo ler mensagens de texto. Escreva-me com palavras, por favor.',
  slowDown: 'Você está enviando mensagens mais rápido do que consigo responder. Espere um minuto, por favor.',
  credits:
    'Esgotei a minha cota de mensagens deste mês, por isso não consigo responder agora. Tente de novo quando ela for renovada.',
  failed: 'Desculpe, não consegui responder agora. Tente de novo daqui a pouco.',
  limits: 'Esta conversa ficou longa demais para eu guardar. Envie /reset para começar uma nova.',
  commandStart: 'Começar a conversa',
  commandHelp: 'Como falar comigo',
  commandReset: 'Começar uma nova conversa',
};
