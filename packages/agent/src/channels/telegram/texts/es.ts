import type { Texts } from './en.js';

export const es: Texts = {
  help: 'Envíame un mensaje y te responderé. Mis comandos:',
  welcome:
    '¡Hola! Envíame un mensaje y te responderé.\n\n/reset empieza una conversación nueva\n/help muestra este mensaje',
  reset: 'He empezado una conversación nueva.',
  resetAdminsOnly: 'Solo un administrador de este grupo puede empezar aquí una conversación nueva.',
  textOnly: 'Por ahora solo puedo leer mensajes de texto. Escríbeme con palabras, por favor.',
  unsupported:
    'Puedo leer texto, fotos, notas de voz y documentos (PDF, texto, Markdown, CSV y JSON). No puedo leer este tipo de mensaje.',
  noVision:
    'Puedo leer texto, notas de voz y documentos (PDF, texto, Markdown, CSV y JSON), pero no imágenes con este modelo. Describe la foto con palabras, por favor.',
  noAudio: 'Con este modelo no puedo escuchar notas de voz. Escríbeme tu mensaje, por favor.',
  audioTooLong: 'Esa grabación dura más de 10 minutos; envía una más corta, por favor.',
  fileTooBig: 'Ese archivo pesa más de 20 MB, más de lo que puedo leer. Envía uno más pequeño, por favor.',
  unsupportedDocument:
    'Puedo leer documentos PDF, de texto, Markdown, CSV y JSON; este archivo no es ninguno de ellos.',
  downloadFailed: 'No pude descargar ese archivo de Telegram. Envíalo de nuevo, por favor.',
  notImage: 'Ese archivo no es una imagen que pueda leer (PNG, JPEG, GIF o WebP).',
  emptyTranscript: 'No pude distinguir ninguna palabra en esa grabación.',
  transcriptionFailed: 'No pude transcribir esa grabación ahora. Inténtalo de nuevo o escríbeme tu mensaje.',
  transcriptionRefused: 'No pude transcribir esa grabación ({why}).',
  unreadableDocument: 'No pude leer ese documento: {why}.',
  documentCut: '{name} es largo: solo leí {what}.',
  notAllowed: 'Lo siento, este asistente solo habla con las personas que su dueño ha autorizado.',
  pairing:
    'Este asistente es privado. Para pedir acceso, envía a su dueño este código: {code}\nEs válido durante una hora.',
  dailyLimit: 'Has llegado a tu límite de mensajes de hoy. Vuelve mañana, por favor.',
  slowDown: 'Estás enviando mensajes más rápido de lo que puedo responder. Espera un minuto, por favor.',
  queueFull: 'Todavía estoy con tus mensajes anteriores. Vuelve a enviar este cuando los haya respondido.',
  credits:
    'He agotado mi cupo de mensajes de este mes, así que ahora no puedo responder. Vuelve a intentarlo cuando se renueve.',
  failed: 'Lo siento, no he podido responder ahora mismo. Inténtalo de nuevo en un momento.',
  limits: 'Esta conversación es demasiado larga para que la conserve. Envía /reset para empezar una nueva.',
  commandStart: 'Empezar la conversación',
  commandHelp: 'Cómo hablar conmigo',
  commandReset: 'Empezar una conversación nueva',
  commandMemory: 'Lo que recuerdo de ti',
  commandForget: 'Olvidar lo que recuerdo de ti',
  commandReminders: 'Tus mensajes programados',
  commandTimezone: 'Tu zona horaria',
  locale: 'es-ES',
  memoryHeader: 'Lo que recuerdo de ti:',
  memoryArchived: '{n} datos más antiguos están archivados y ya no se usan.',
  memoryForgetHint: '/forget lo borra.',
  memoryEmpty: 'Todavía no recuerdo nada de ti.',
  forgotOne: 'Hecho: olvidé 1 dato sobre ti.',
  forgotMany: 'Hecho: olvidé {n} datos sobre ti.',
  nothingToForget: 'No había nada que olvidar.',
  remindersEmpty: 'No tienes mensajes programados.',
  remindersHeader: 'Tus mensajes programados:',
  remindersRepeats: 'se repite ({cron}), próximo',
  cancelUnknown: 'Ningún mensaje programado tuyo tiene ese id.',
  cancelled: 'Cancelado.',
  timezoneIs:
    'Tu zona horaria es {zone}; allí son las {time}. Para cambiarla, envía /timezone seguido de un nombre como Europe/Madrid.',
  timezoneUnknown:
    'Todavía no conozco tu zona horaria. Envía /timezone seguido de un nombre como Europe/Madrid o America/Mexico_City.',
  timezoneSet: 'Tu zona horaria ahora es {zone}; allí son las {time}.',
  timezoneInvalid:
    '«{given}» no es una zona horaria que conozca. Usa un nombre como Europe/Madrid o America/Mexico_City.',
  pairingAskOwner:
    '{name} (id de Telegram {id}) quiere hablar con este asistente. Código {code}, válido durante una hora.',
  pairingApprove: 'Aprobar',
  pairingDeny: 'Rechazar',
  pairingApproved: 'Aprobado: {name} ya puede hablar con el asistente.',
  pairingDenied: 'Rechazado: {name} se queda fuera.',
  pairingGone: 'Esta solicitud ha caducado o ya se decidió.',
  pairingOwnerOnly: 'Solo el propietario puede decidir esto.',
  pairingFailed: 'No se pudo hacer. Inténtalo de nuevo en un momento.',
  pairingWelcome: 'El propietario te ha dado acceso. Envíame un mensaje.',
  someone: 'Alguien',
};
