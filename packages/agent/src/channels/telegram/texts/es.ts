import type { Texts } from './en.js';

export const es: Texts = {
  help: 'Envíame un mensaje y te responderé.\n\n/reset empieza una conversación nueva\n/help muestra este mensaje',
  welcome:
    '¡Hola! Envíame un mensaje y te responderé.\n\n/reset empieza una conversación nueva\n/help muestra este mensaje',
  reset: 'He empezado una conversación nueva.',
  resetAdminsOnly: 'Solo un administrador de este grupo puede empezar aquí una conversación nueva.',
  textOnly: 'Por ahora solo puedo leer mensajes de texto. Escríbeme con palabras, por favor.',
  slowDown: 'Estás enviando mensajes más rápido de lo que puedo responder. Espera un minuto, por favor.',
  credits:
    'He agotado mi cupo de mensajes de este mes, así que ahora no puedo responder. Vuelve a intentarlo cuando se renueve.',
  failed: 'Lo siento, no he podido responder ahora mismo. Inténtalo de nuevo en un momento.',
  limits: 'Esta conversación es demasiado larga para que la conserve. Envía /reset para empezar una nueva.',
  commandStart: 'Empezar la conversación',
  commandHelp: 'Cómo hablar conmigo',
  commandReset: 'Empezar una conversación nueva',
};
