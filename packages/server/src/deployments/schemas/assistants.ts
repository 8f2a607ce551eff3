import { Type, type Static } from 'typebox';
import { API_MODES } from '../../domain/deployment.js';
import { CallbackUrl, NO_CONTROL_CHARS } from '../../platform/http/schemas/common.js';

/** Stored strings never hold control characters (NUL is also an error on PostgreSQL). */
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: NO_CONTROL_CHARS });
const NonEmpty = (description: string, maxLength = 4096) =>
  Type.String({ minLength: 1, maxLength, description, pattern: NO_CONTROL_CHARS });

export const PurchaseBody = Type.Object(
  {
    apiMode: Type.Union([Type.Literal('byok'), Type.Literal('managed'), Type.Literal('unlimited')], {
      description: API_MODES.join(', '),
    }),
  },
  { additionalProperties: false },
);
export type PurchaseInput = Static<typeof PurchaseBody>;

export const PurchaseResult = Type.Object(
  { deploymentId: Type.String({ format: 'uuid' }), checkoutUrl: Type.String({ format: 'uri' }) },
  { additionalProperties: false },
);

export const ActivateBody = Type.Object(
  {
    name: Name,
    modelProvider: Type.Optional(NonEmpty('Required in byok mode; managed and unlimited use the router provider.', 64)),
    modelId: NonEmpty('Model identifier from the model catalog.', 200),
    messengerBotToken: NonEmpty('Telegram bot token.', 256),
    modelApiKey: Type.Optional(NonEmpty('Required in byok mode; ignored in managed and unlimited.')),
    callbackUrl: Type.Optional(CallbackUrl),
  },
  { additionalProperties: false },
);
export type ActivateInput = Static<typeof ActivateBody>;

export const UpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    modelProvider: Type.Optional(
      NonEmpty('Needed for some byok model changes; forced to the router in managed and unlimited.', 64),
    ),
    modelId: Type.Optional(NonEmpty('Model identifier from the model catalog.', 200)),
    messengerBotToken: Type.Optional(NonEmpty('Replaces the current bot token.', 256)),
    modelApiKey: Type.Optional(NonEmpty('byok only.')),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateInput = Static<typeof UpdateBody>;

/** PUT …/model (DESIGN §9.3): the model alone, which an active assistant takes without a stop. */
export const ModelBody = Type.Object(
  {
    modelProvider: Type.Optional(
      NonEmpty('byok: a provider of the model catalog; managed and unlimited always use the router.', 64),
    ),
    modelId: NonEmpty('Model identifier from the model catalog.', 200),
  },
  { additionalProperties: false },
);
export type ModelInput = Static<typeof ModelBody>;

export const RedeployBody = Type.Object({ callbackUrl: Type.Optional(CallbackUrl) }, { additionalProperties: false });
export type RedeployInput = Static<typeof RedeployBody>;

export const DeleteResult = Type.Object({ success: Type.Literal(true) }, { additionalProperties: false });
