import type { Texts } from './en.js';

export const pt: Texts = {
  help: 'Envie-me uma mensagem e eu respondo.\n\n/reset começa uma nova conversa\n/help mostra esta mensagem',
  welcome: 'Olá! Envie-me uma mensagem e eu respondo.\n\n/reset começa uma nova conversa\n/help mostra esta mensagem',
  reset: 'Comecei uma nova conversa.',
  resetAdminsOnly: 'Só um administrador deste grupo pode começar uma nova conversa aqui.',
  textOnly: 'Por enquanto só consigo ler mensagens de texto. Escreva-me com palavras, por favor.',
  unsupported:
    'Consigo ler texto, fotos, mensagens de voz e documentos (PDF, texto, Markdown, CSV e JSON). Não consigo ler este tipo de mensagem.',
  noVision:
    'Consigo ler texto, mensagens de voz e documentos (PDF, texto, Markdown, CSV e JSON), mas não imagens com este modelo. Descreva a foto em palavras, por favor.',
  noAudio: 'Com este modelo não consigo ouvir mensagens de voz. Escreva a sua mensagem, por favor.',
  audioTooLong: 'Essa gravação tem mais de 10 minutos; envie uma mais curta, por favor.',
  fileTooBig: 'Esse arquivo tem mais de 20 MB, mais do que consigo ler. Envie um menor, por favor.',
  unsupportedDocument: 'Consigo ler documentos PDF, de texto, Markdown, CSV e JSON; este arquivo não é nenhum deles.',
  downloadFailed: 'Não consegui baixar esse arquivo do Telegram. Envie de novo, por favor.',
  notImage: 'Esse arquivo não é uma imagem que eu consiga ler (PNG, JPEG, GIF ou WebP).',
  emptyTranscript: 'Não consegui distinguir nenhuma palavra nessa gravação.',
  transcriptionFailed: 'Não consegui transcrever essa gravação agora. Tente de novo ou escreva a sua mensagem.',
  transcriptionRefused: 'Não consegui transcrever essa gravação ({why}).',
  unreadableDocument: 'Não consegui ler esse documento: {why}.',
  documentCut: '{name} é longo: li apenas {what}.',
  notAllowed: 'Desculpe, este assistente só conversa com as pessoas que o dono autorizou.',
  pairing: 'Este assistente é privado. Para pedir acesso, envie ao dono este código: {code}\nEle vale por uma hora.',
  dailyLimit: 'Você atingiu o limite de mensagens de hoje. Volte amanhã, por favor.',
  slowDown: 'Você está enviando mensagens mais rápido do que consigo responder. Espere um minuto, por favor.',
  queueFull: 'Ainda estou trabalhando nas suas mensagens anteriores. Envie esta de novo quando eu tiver respondido.',
  credits:
    'Esgotei a minha cota de mensagens deste mês, por isso não consigo responder agora. Tente de novo quando ela for renovada.',
  failed: 'Desculpe, não consegui responder agora. Tente de novo daqui a pouco.',
  limits: 'Esta conversa ficou longa demais para eu guardar. Envie /reset para começar uma nova.',
  commandStart: 'Começar a conversa',
  commandHelp: 'Como falar comigo',
  commandReset: 'Começar uma nova conversa',
  commandMemory: 'O que eu lembro sobre você',
  commandForget: 'Esquecer o que eu lembro sobre você',
  commandReminders: 'Suas mensagens agendadas',
};
