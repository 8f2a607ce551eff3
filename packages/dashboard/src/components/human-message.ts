// The API's messages name its fields (messengerBotToken, modelApiKey, ...) for developers; a person
// filling a form knows them by their labels. Only whole, known field names are replaced.
const LABELS: Record<string, string> = {
  messengerBotToken: 'the Telegram bot token',
  modelApiKey: 'the model API key',
  modelProvider: 'the model provider',
  modelId: 'the model',
  callbackUrl: 'the status callback URL',
  apiMode: 'the plan',
  systemPrompt: 'the persona',
  welcomeMessage: 'the welcome message',
  telegramUserIds: 'the allowed Telegram users',
  perUserDailyReplies: 'the daily replies per user',
  historyChars: 'the conversation length',
  currentPassword: 'the current password',
  newPassword: 'the new password',
};

const FIELD = new RegExp(`\\b(${Object.keys(LABELS).join('|')})\\b`, 'g');

export function humanMessage(message: string): string {
  const out = message
    // The API's prefix is for developers; in a form the field's own sentence is what helps.
    .replace(/^Invalid request (body|querystring): /, '')
    .replace(/\bbody\/(\w+)/g, '$1')
    .replace(FIELD, (name) => LABELS[name] ?? name)
    .trim();
  const sentence = out.charAt(0).toUpperCase() + out.slice(1);
  return /[.!?)]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Codes a person can do nothing about but report: there the request id helps whoever they ask. */
export const REPORTABLE = new Set(['INTERNAL_ERROR', 'BAD_GATEWAY', 'UNEXPECTED_RESPONSE']);
