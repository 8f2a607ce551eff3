// An assistant's settings (DESIGN §7.1), beside the spec's paths: read, replace, versions, rollback.
// Parse (schema), call one verb, shape the envelope.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { AssistantSettings } from '@berth/contracts/settings';
import type { ErrorCode } from '../platform/errors/codes.js';
import { ASSISTANT_READ_ERRORS, assistantRoute, dataRoute } from '../platform/http/define-route.js';
import { PairingCodeParams, PairingSchema, RollbackBody, SettingsVersionSchema } from './schemas.js';
import { approvePairing, denyPairing, listPairings } from './pairings.js';
import type { Services } from '../services.js';
import type { SettingsVersion } from './current-settings.js';
import { getSettings, listSettingsVersions, putSettings, rollbackSettings } from './settings-verbs.js';

const tags = ['Assistants'];
const WRITE_ERRORS = [...ASSISTANT_READ_ERRORS, 'INVALID_REQUEST'] satisfies ErrorCode[];
const Version = Type.Ref('AssistantSettingsVersion');

const view = (v: SettingsVersion) => ({ ...v.settings, version: v.version, updatedAt: v.updatedAt });

export function settingsRoutes(app: FastifyInstance, s: Services) {
  app.addSchema(AssistantSettings);
  app.addSchema(SettingsVersionSchema);
  const base = '/api/v1/assistants/:deploymentId/settings';

  assistantRoute(
    app,
    tags,
    {
      method: 'GET',
      url: base,
      operationId: 'getAssistantSettings',
      summary: 'Get assistant settings',
      description: "The newest version of the assistant's settings; version 1 holds the defaults.",
      data: Version,
      answer: 'The current settings and their version.',
      errors: ASSISTANT_READ_ERRORS,
    },
    async (req) => view(await getSettings(s, req, req.params.deploymentId)),
  );

  assistantRoute<{ Body: AssistantSettings }>(
    app,
    tags,
    {
      method: 'PUT',
      url: base,
      operationId: 'putAssistantSettings',
      summary: 'Replace assistant settings',
      description:
        'Stores the whole document as the next version (any status). On an active assistant it is applied to the running worker in place: the status stays active and the next model call uses it. Elsewhere the next deploy uses it.',
      body: Type.Ref('AssistantSettings'),
      data: Version,
      answer: 'The stored settings with their new version.',
      errors: WRITE_ERRORS,
    },
    async (req) => view(await putSettings(s, req, req.params.deploymentId, req.body)),
  );

  assistantRoute(
    app,
    tags,
    {
      method: 'GET',
      url: `${base}/versions`,
      operationId: 'listAssistantSettingsVersions',
      summary: 'List assistant settings versions',
      description: 'The last 10 versions, newest first.',
      data: Type.Array(Type.Ref('AssistantSettingsVersion')),
      answer: 'Kept versions, newest first.',
      errors: ASSISTANT_READ_ERRORS,
    },
    async (req) => (await listSettingsVersions(s, req, req.params.deploymentId)).map(view),
  );

  assistantRoute<{ Body: Static<typeof RollbackBody> }>(
    app,
    tags,
    {
      method: 'POST',
      url: `${base}/rollback`,
      operationId: 'rollbackAssistantSettings',
      summary: 'Roll back assistant settings',
      description:
        "Stores a kept version's document as a new version, applied like a PUT. A version that is not kept answers 404.",
      body: RollbackBody,
      data: Version,
      answer: 'The restored settings with their new version.',
      errors: WRITE_ERRORS,
    },
    async (req) => view(await rollbackSettings(s, req, req.params.deploymentId, req.body.version)),
  );

  assistantRoute(
    app,
    tags,
    {
      method: 'GET',
      url: '/api/v1/assistants/:deploymentId/pairings',
      operationId: 'listAssistantPairings',
      summary: 'List pending pairing codes',
      description:
        'Telegram users who asked for access to an assistant in pairing mode, with their code (valid one hour). Empty while the assistant is not running.',
      data: Type.Array(PairingSchema),
      answer: 'Pending codes.',
      errors: [...ASSISTANT_READ_ERRORS, 'BAD_GATEWAY'],
    },
    (req) => listPairings(s, req, req.params.deploymentId),
  );

  dataRoute<{ Params: Static<typeof PairingCodeParams> }>(
    app,
    {
      method: 'POST',
      url: '/api/v1/assistants/:deploymentId/pairings/:code/approve',
      operationId: 'approveAssistantPairing',
      summary: 'Approve a pairing code',
      description:
        "Adds the code's Telegram user to access.telegramUserIds as a new settings version, applied live. An unknown or expired code answers 404.",
      tags,
      auth: 'apiKey',
      params: PairingCodeParams,
      data: Version,
      answer: 'The settings with the user added.',
      errors: [...WRITE_ERRORS, 'INVALID_INPUT', 'BAD_GATEWAY'],
    },
    async (req) => view(await approvePairing(s, req, req.params.deploymentId, req.params.code)),
  );

  dataRoute<{ Params: Static<typeof PairingCodeParams> }>(
    app,
    {
      method: 'POST',
      url: '/api/v1/assistants/:deploymentId/pairings/:code/deny',
      operationId: 'denyAssistantPairing',
      summary: 'Deny a pairing code',
      description:
        'Removes a pending code without adding its Telegram user; the settings do not change. An unknown or expired code answers 404.',
      tags,
      auth: 'apiKey',
      params: PairingCodeParams,
      data: Type.Object({ success: Type.Literal(true) }, { additionalProperties: false }),
      answer: 'The code is gone.',
      errors: [...ASSISTANT_READ_ERRORS, 'BAD_GATEWAY'],
    },
    (req) => denyPairing(s, req, req.params.deploymentId, req.params.code),
  );
}
