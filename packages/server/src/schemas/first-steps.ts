// Answers of the small endpoints that help a person over the first steps: who am I, and where do I
// pay for a slot I bought elsewhere.
import { Type } from 'typebox';
import { Nullable } from './common.js';
import { OrganizationView, UserView } from './accounts.js';

export const AccountView = Type.Object(
  {
    user: UserView,
    organization: Nullable(OrganizationView),
    key: Nullable(
      Type.Object(
        { id: Type.String({ format: 'uuid' }), name: Type.String(), prefix: Type.String() },
        { additionalProperties: false, description: 'The API key of this request (null for a browser session).' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const CheckoutLinkView = Type.Object(
  {
    deploymentId: Type.String({ format: 'uuid' }),
    apiMode: Type.Union([Type.Literal('byok'), Type.Literal('managed'), Type.Literal('unlimited')]),
    checkoutUrl: Type.String({ format: 'uri', description: 'Open it in any browser to pay for the slot.' }),
  },
  { additionalProperties: false },
);

export const ConnectView = Type.Object(
  {
    baseUrl: Type.String({
      format: 'uri',
      description: 'The base URL for OpenAI-compatible clients (they append /chat/completions).',
    }),
    model: Type.Literal('assistant-agent'),
    botUsername: Nullable(Type.String({ description: "The Telegram bot's @username (without the @)." })),
    botLink: Nullable(Type.String({ format: 'uri', description: 'A t.me link that opens a chat with the bot.' })),
  },
  { additionalProperties: false },
);
