// What the chat endpoints answer, as TypeBox schemas: the completion (with `usage`), every event of
// the stream, and the model list. The control plane documents them; tests check real answers.
import { Type } from 'typebox';

export const ChatUsage = Type.Object(
  {
    prompt_tokens: Type.Integer({ minimum: 0 }),
    completion_tokens: Type.Integer({ minimum: 0 }),
    total_tokens: Type.Integer({ minimum: 0 }),
  },
  { description: 'Tokens of the whole turn, tool rounds included.' },
);

export const ChatCompletion = Type.Object({
  id: Type.String(),
  object: Type.Literal('chat.completion'),
  created: Type.Integer({ description: 'Unix time in seconds' }),
  model: Type.Literal('assistant-agent'),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: Type.Object({ role: Type.String(), content: Type.String() }),
      finish_reason: Type.String(),
    }),
  ),
  usage: Type.Optional(ChatUsage),
});

const chunkHead = {
  id: Type.String(),
  object: Type.Literal('chat.completion.chunk'),
  created: Type.Integer({ description: 'Unix time in seconds' }),
  model: Type.Literal('assistant-agent'),
};

export const ChatCompletionChunk = Type.Object({
  ...chunkHead,
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      delta: Type.Object({ role: Type.Optional(Type.String()), content: Type.Optional(Type.String()) }),
      finish_reason: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  usage: Type.Optional(ChatUsage),
});

/** Also a valid empty chunk, so SDKs that ignore event names read an empty delta (DESIGN 0008). */
export const ToolProgressData = Type.Object({
  ...chunkHead,
  choices: Type.Array(Type.Object({ index: Type.Literal(0), delta: Type.Object({}), finish_reason: Type.Null() }), {
    minItems: 1,
    maxItems: 1,
  }),
  tool: Type.String({ description: 'Tool name, e.g. calculator' }),
  emoji: Type.String(),
  label: Type.String({ description: 'What the tool is doing, for display' }),
});

export const StreamErrorData = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

/**
 * One server-sent event of a streamed answer, as `{event?, data}` (the convention code generators
 * read for text/event-stream): chunks have no event name, the stream ends with `data: [DONE]`.
 */
export const ChatStreamEvent = Type.Union(
  [
    Type.Object({ data: ChatCompletionChunk }, { title: 'ChunkEvent' }),
    Type.Object(
      { event: Type.Literal('assistant.tool.progress'), data: ToolProgressData },
      { title: 'ToolProgressEvent' },
    ),
    Type.Object({ event: Type.Literal('error'), data: StreamErrorData }, { title: 'ErrorEvent' }),
    Type.Object({ data: Type.Literal('[DONE]') }, { title: 'DoneEvent' }),
  ],
  {
    description:
      'Server-sent events: `data:` lines of chat.completion.chunk objects (the last one carries usage), ' +
      '`event: assistant.tool.progress` while a tool runs, `event: error` if the turn fails after the ' +
      'stream started, `: keepalive` comments while the model thinks, and `data: [DONE]` at the end.',
  },
);

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
