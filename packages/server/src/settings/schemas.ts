// The settings endpoints' shapes (DESIGN §7.1). The document itself is the shared AssistantSettings
// schema of @berth/contracts, registered once (settings/routes.ts) and referenced by $id.
import { Type, type Static } from 'typebox';
import { AssistantSettings } from '@berth/contracts/settings';
import { Timestamp } from '../platform/http/schemas/common.js';

/** A stored version: the document and its number. */
export const SettingsVersionSchema = Type.Object(
  {
    ...AssistantSettings.properties,
    version: Type.Integer({ minimum: 1, description: 'Grows by one with every change and rollback.' }),
    updatedAt: Timestamp,
  },
  { additionalProperties: false, $id: 'AssistantSettingsVersion' },
);

export const PairingSchema = Type.Object(
  {
    code: Type.String({ description: 'The 8-character code the Telegram user was given.' }),
    telegramUserId: Type.Integer(),
    name: Type.Union([Type.String(), Type.Null()], { description: "The user's Telegram name, when known." }),
    expiresAt: Timestamp,
  },
  { additionalProperties: false },
);

export const PairingCodeParams = Type.Object({
  deploymentId: Type.String({ format: 'uuid', description: 'Deployment identifier' }),
  code: Type.String({ pattern: '^[A-Za-z0-9]{8}$', description: 'A pending pairing code' }),
});

export const RollbackBody = Type.Object(
  { version: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, description: 'A kept version to restore.' }) },
  { additionalProperties: false },
);
export type RollbackInput = Static<typeof RollbackBody>;
