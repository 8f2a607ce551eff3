import { Type } from 'typebox';

// Request, answers and stream events live in @berth/contracts, shared with the agent.
export { ChatCompletion, ChatCompletionBody, ChatStreamEvent, ModelList } from '@berth/contracts';

export const SessionIdHeader = Type.String({
  maxLength: 256,
  description: 'Opaque conversation id; history is kept per session on the server.',
});
