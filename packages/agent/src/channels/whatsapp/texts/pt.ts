import type { WhatsAppTexts } from './en.js';

export const pt: WhatsAppTexts = {
  unsupported: 'Consigo ler texto, fotos, mensagens de voz e documentos; este tipo de mensagem eu não consigo ler.',
  noVision: 'Com este modelo não consigo ver imagens. Por favor, descreva-a em palavras.',
  noAudio: 'Com este modelo não consigo ouvir mensagens de voz. Por favor, escreva sua mensagem em palavras.',
  fileTooBig: 'Esse arquivo é maior do que consigo ler. Por favor, envie um menor.',
  unsupportedDocument: 'Consigo ler documentos PDF, de texto, Markdown, CSV e JSON; este arquivo não é nenhum deles.',
  downloadFailed: 'Não consegui baixar esse arquivo do WhatsApp. Por favor, envie de novo.',
  notImage: 'Esse arquivo não é uma imagem que eu consiga ler (PNG, JPEG, GIF ou WebP).',
  emptyTranscript: 'Não consegui distinguir nenhuma palavra nessa gravação.',
  transcriptionFailed:
    'Não consegui transcrever essa gravação agora. Por favor, tente de novo ou escreva sua mensagem.',
  unreadableDocument: 'Não consegui ler esse documento: {why}.',
  documentCut: '{name} é longo: li apenas {what}.',
  slowDown: 'Você está enviando mensagens mais rápido do que consigo responder. Por favor, espere um minuto.',
  credits: 'Este assistente esgotou seus créditos por enquanto. Por favor, tente mais tarde.',
  failed: 'Desculpe, não consegui responder agora. Por favor, tente de novo daqui a pouco.',
  notAllowed: 'Desculpe, este assistente só conversa com as pessoas que o dono autorizou.',
  dailyLimit: 'Você atingiu suas mensagens de hoje. Por favor, volte amanhã.',
  reset: 'Começamos uma nova conversa.',
  outsideWindow:
    'O WhatsApp só me deixa escrever para você nas 24 horas após sua última mensagem, então não posso enviar nada em {at} (sua janela fecha em {closes}). Escolha um horário antes disso.',
  repeatsOutsideWindow:
    'O WhatsApp só me deixa escrever para você nas 24 horas após sua última mensagem, então uma mensagem repetida deixaria de chegar até você; peça um único lembrete antes de {closes}.',
  locale: 'pt-BR',
};
