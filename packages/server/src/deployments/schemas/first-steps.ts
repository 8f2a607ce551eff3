// Answers of the small endpoints that help a person over the first steps: who am I, and where do I
// pay for a slot I bought elsewhere.
import { Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas/common.js';
import { OrganizationView, UserView } from '../../accounts/index.js';

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

export const PlanView = Type.Object(
  {
    mode: Type.Union([Type.Literal('byok'), Type.Literal('managed'), Type.Literal('unlimited')]),
    description: Type.String(),
    price: Nullable(
      Type.Object(
        {
          amount: Type.Number({ minimum: 0, description: "In the currency's main unit." }),
          currency: Type.String({ description: 'ISO 4217 code, lower case.' }),
          interval: Nullable(Type.String({ description: 'Billing interval (month, year), or null for one-off.' })),
        },
        { additionalProperties: false },
      ),
    ),
    allowanceUsd: Nullable(Type.Number({ minimum: 0, description: 'Model credits included per billing period.' })),
  },
  { additionalProperties: false },
);
