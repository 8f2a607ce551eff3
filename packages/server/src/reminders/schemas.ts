// The shapes of an assistant's reminders as its owner sees them (issue 57 R5).
import { Type } from 'typebox';
import { Timestamp } from '../platform/http/schemas/common.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ReminderSchema = Type.Object(
  {
    id: Type.String({
      pattern: '^[0-9a-f]{8}$',
      description: 'The reminder id (the end user cancels it with /cancel_<id>).',
    }),
    user: Type.String({ description: 'The end user who asked for it: "tg:<Telegram user id>".' }),
    chatId: Type.String({
      description: 'The Telegram chat it is delivered to; "<chat>:<topic>" when asked for in a forum topic.',
    }),
    text: Type.String({ description: 'The message, or for a task the prompt answered at that time.' }),
    task: Type.Boolean({ description: 'True: a metered turn answers the text; false: the text is sent as it is.' }),
    at: { ...Timestamp, description: 'When it is next due (UTC).' },
    cron: Nullable(Type.String({ description: 'The repeat rule (5 fields) of a repeating one.' })),
    timezone: Nullable(Type.String({ description: 'The IANA time zone the repeat rule or time was given in.' })),
  },
  { additionalProperties: false, $id: 'AssistantReminder' },
);

export const ReminderParams = Type.Object({
  deploymentId: Type.String({ format: 'uuid', description: 'Deployment identifier' }),
  reminderId: Type.String({ pattern: '^[0-9a-f]{8}$', description: 'A pending reminder id' }),
});

export const RemovedSchema = Type.Object(
  {
    success: Type.Literal(true),
    removed: Type.Integer({ minimum: 0, description: 'How many pending reminders were cancelled.' }),
  },
  { additionalProperties: false },
);
