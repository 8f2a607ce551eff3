import { Type } from 'typebox';

export const ChatMessage = Type.Object({
  role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
  content: Type.String(),
});

/** Other OpenAI-compatible parameters pass through to the provider, so extra keys are allowed. */
export const ChatCompletionBody = Type.Object(
  {
    model: Type.Literal('assistant-agent'),
    messages: Type.Array(ChatMessage, { minItems: 1 }),
    stream: Type.Optional(Type.Boolean({ default: false })),
    max_tokens: Type.Optional(Type.Number()),
    temperature: Type.Optional(Type.Number()),
  },
  { additionalProperties: true },
);

export const ChatCompletion = Type.Object({
  id: Type.String(),
  object: Type.Literal('chat.completion'),
  created: Type.Integer(),
  model: Type.Literal('assistant-agent'),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: Type.Object({ role: Type.String(), content: Type.String() }),
      finish_reason: Type.String(),
    }),
  ),
});

export const ModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      object: Type.Literal('model'),
      owned_by: Type.String(),
      created: Type.Integer(),
    }),
  ),
});

export const SessionIdHeader = Type.String({
  maxLength: 256,
  description: 'Opaque conversation id; history is kept per session on the server.',
});
