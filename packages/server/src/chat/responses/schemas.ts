// The Responses API as Berth serves it (POST /responses and GET /responses/{id}): the request a
// stock OpenAI client sends, the `response` object and the stream's events. The body schema is the
// one check of a request (translate-request.ts compiles it); the answers' schemas document.
import { Type } from 'typebox';

const InputPart = Type.Object(
  {
    type: Type.String({
      description:
        '`input_text` ({"type":"input_text","text"}) always; `output_text` in an assistant item (a client replaying history); `input_image` ({"type":"input_image","image_url"}) when the deployment\'s model has the "vision" capability. Other types are refused.',
    }),
  },
  { additionalProperties: true },
);

export const ResponseInputItem = Type.Object(
  {
    type: Type.Optional(Type.Literal('message')),
    role: Type.Union([
      Type.Literal('user'),
      Type.Literal('assistant'),
      Type.Literal('system'),
      Type.Literal('developer'),
    ]),
    content: Type.Union([Type.String(), Type.Array(InputPart)]),
  },
  { additionalProperties: true },
);

/** Other chat parameters pass through to the provider, as on chat completions; extra keys are allowed. */
export const ResponseCreateBody = Type.Object(
  {
    model: Type.Literal('assistant-agent'),
    input: Type.Union([Type.String(), Type.Array(ResponseInputItem, { minItems: 1 })], {
      description: 'The user turn as a string, or message items (oldest first).',
    }),
    instructions: Type.Optional(Type.String({ description: 'A system message for this call only.' })),
    stream: Type.Optional(Type.Boolean({ default: false })),
    previous_response_id: Type.Optional(
      Type.String({
        maxLength: 256,
        description:
          'Continues the conversation of a stored response (its API session): send only the new user turn as input.',
      }),
    ),
    store: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          'Keep the conversation so previous_response_id can continue it, and the response for GET /responses/{id}.',
      }),
    ),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1, description: 'Sent to the model as max_tokens.' })),
    temperature: Type.Optional(Type.Number()),
  },
  { additionalProperties: true },
);

const OutputText = Type.Object(
  { type: Type.Literal('output_text'), text: Type.String(), annotations: Type.Array(Type.Unknown()) },
  { additionalProperties: false },
);

const OutputMessage = Type.Object(
  {
    type: Type.Literal('message'),
    id: Type.String(),
    role: Type.Literal('assistant'),
    status: Type.Union([Type.Literal('in_progress'), Type.Literal('completed')]),
    content: Type.Array(OutputText),
  },
  { additionalProperties: false },
);

const ResponseUsage = Type.Object(
  { input_tokens: Type.Integer(), output_tokens: Type.Integer(), total_tokens: Type.Integer() },
  { additionalProperties: false },
);

export const ResponseObject = Type.Object(
  {
    id: Type.String({ description: '`resp_…`' }),
    object: Type.Literal('response'),
    created_at: Type.Integer({ description: 'Unix seconds.' }),
    status: Type.Union([Type.Literal('in_progress'), Type.Literal('completed'), Type.Literal('failed')], {
      description: '`failed` (with `error`) when a response asked to be stored could not be: it cannot be retrieved.',
    }),
    model: Type.String(),
    output: Type.Array(OutputMessage),
    previous_response_id: Type.Union([Type.String(), Type.Null()]),
    instructions: Type.Union([Type.String(), Type.Null()]),
    store: Type.Boolean(),
    error: Type.Union([
      Type.Null(),
      Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false }),
    ]),
    incomplete_details: Type.Null(),
    usage: Type.Union([ResponseUsage, Type.Null()]),
  },
  { additionalProperties: false },
);

export const ResponseStreamEvent = Type.Object(
  {
    type: Type.String({
      description:
        'response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta, response.output_text.done, response.content_part.done, response.output_item.done, then response.completed (or response.failed when the response could not be stored); each is sent as `event: <type>` with this object as its data.',
    }),
    sequence_number: Type.Integer(),
  },
  { additionalProperties: true },
);

export const ResponseIdParams = Type.Object({
  deploymentId: Type.String({ description: 'Deployment id (UUID)' }),
  responseId: Type.String({ maxLength: 256, description: 'The `resp_…` id of a stored response' }),
});
