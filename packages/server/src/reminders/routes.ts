// GET and DELETE /api/v1/assistants/{id}/reminders[/{reminderId}] (issue 57 R5), beside the
// spec's paths: parse (schema), call one verb, shape the envelope.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { ErrorCode } from '../platform/errors/codes.js';
import { assistantRoute, dataRoute } from '../platform/http/define-route.js';
import { ReminderParams, ReminderSchema, RemovedSchema } from './schemas.js';
import { clearReminders, listReminders, type ReminderDeps } from './reminders.js';

const tags = ['Assistants'];
const ERRORS = [
  'UNAUTHORIZED',
  'NOT_FOUND',
  'ASSISTANT_NOT_READY',
  'BAD_GATEWAY',
  'API_DISABLED',
  'INTERNAL_ERROR',
] satisfies ErrorCode[];

export function reminderRoutes(app: FastifyInstance, s: ReminderDeps) {
  app.addSchema(ReminderSchema);
  const base = '/api/v1/assistants/:deploymentId/reminders';

  assistantRoute(
    app,
    tags,
    {
      method: 'GET',
      url: base,
      operationId: 'listAssistantReminders',
      summary: 'List pending reminders',
      description:
        "Every end user's pending reminders and scheduled tasks of an active assistant, soonest first (at most 50), read from its running worker.",
      data: Type.Array(Type.Ref('AssistantReminder')),
      answer: 'Pending reminders, soonest first.',
      errors: ERRORS,
    },
    (req) => listReminders(s, req, req.params.deploymentId),
  );

  assistantRoute(
    app,
    tags,
    {
      method: 'DELETE',
      url: base,
      operationId: 'clearAssistantReminders',
      summary: 'Cancel every pending reminder',
      description:
        "Cancels every end user's pending reminders and tasks of an active assistant; none of them is delivered. Their users are not told.",
      data: RemovedSchema,
      answer: 'How many were cancelled.',
      errors: ERRORS,
    },
    (req) => clearReminders(s, req, req.params.deploymentId),
  );

  dataRoute<{ Params: Static<typeof ReminderParams> }>(
    app,
    {
      method: 'DELETE',
      url: `${base}/:reminderId`,
      operationId: 'deleteAssistantReminder',
      summary: 'Cancel a pending reminder',
      description:
        'Cancels one pending reminder or task (any end user’s) of an active assistant; it is not delivered. One already delivered or cancelled answers 404.',
      tags,
      auth: 'apiKey',
      params: ReminderParams,
      data: RemovedSchema,
      answer: 'Cancelled.',
      errors: ERRORS,
    },
    (req) => clearReminders(s, req, req.params.deploymentId, req.params.reminderId),
  );
}
