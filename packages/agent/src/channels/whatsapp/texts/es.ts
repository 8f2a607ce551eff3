import type { WhatsAppTexts } from './en.js';

export const es: WhatsAppTexts = {
  unsupported: 'Puedo leer texto, fotos, notas de voz y documentos; este tipo de mensaje no lo puedo leer.',
  noVision: 'Con este modelo no puedo ver imágenes. Por favor, descríbela con palabras.',
  noAudio: 'Con este modelo no puedo escuchar notas de voz. Por favor, escríbeme tu mensaje con palabras.',
  fileTooBig: 'Ese archivo es más grande de lo que puedo leer. Por favor, envía uno más pequeño.',
  unsupportedDocument:
    'Puedo leer documentos PDF, de texto, Markdown, CSV y JSON; este archivo no es ninguno de ellos.',
  downloadFailed: 'No pude descargar ese archivo de WhatsApp. Por favor, envíalo de nuevo.',
  notImage: 'Ese archivo no es una imagen que pueda leer (PNG, JPEG, GIF o WebP).',
  emptyTranscript: 'No pude distinguir ninguna palabra en esa grabación.',
  transcriptionFailed:
    'No pude transcribir esa grabación ahora mismo. Por favor, inténtalo de nuevo o escríbeme tu mensaje.',
  unreadableDocument: 'No pude leer ese documento: {why}.',
  documentCut: '{name} es largo: solo leí {what}.',
  slowDown: 'Envías mensajes más rápido de lo que puedo responder. Por favor, espera un minuto.',
  credits: 'Este asistente ha agotado sus créditos por ahora. Por favor, inténtalo más tarde.',
  failed: 'Lo siento, no pude responder ahora mismo. Por favor, inténtalo de nuevo en un momento.',
  notAllowed: 'Lo siento, este asistente solo habla con las personas que su dueño ha autorizado.',
  dailyLimit: 'Has alcanzado tus mensajes de hoy. Por favor, vuelve mañana.',
  reset: 'Empezamos una conversación nueva.',
  outsideWindow:
    'WhatsApp solo me deja escribirte dentro de las 24 horas siguientes a tu último mensaje, así que no puedo enviar nada el {at} (tu ventana se cierra el {closes}). Elige una hora anterior.',
  repeatsOutsideWindow:
    'WhatsApp solo me deja escribirte dentro de las 24 horas siguientes a tu último mensaje, así que un mensaje repetido dejaría de llegarte; pide en su lugar un único recordatorio antes de {closes}.',
  locale: 'es-ES',
};
