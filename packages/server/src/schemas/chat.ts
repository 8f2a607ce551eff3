import { Type } from 'typebox';

// The request schema lives with the agent, which shares its check with the control plane.
export { ChatCompletionBody } from '@berth/contracts';

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
