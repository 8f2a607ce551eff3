// An assistant's pending reminders, for its owner through the control plane (issue 57 R5: one end
// user could fill the assistant's 50 slots; the owner sees and clears them):
//   host mode:  GET /agents/{name}/reminders, DELETE /agents/{name}/reminders[/{id}]  (admin token)
//   serve mode: GET /reminders, DELETE /reminders[/{id}]                               (gateway token)
// A cancelled reminder is never delivered; its end user is not told (decision 0031, R5).
import type { FastifyInstance } from 'fastify';
import { AgentError } from '../errors.js';
import type { Schedule } from '../storage/schedules.js';
import { type AssistantScope, hostScope, serveScope } from './scope.js';

/** One running assistant as these routes need it (runtime/assistant.ts implements it). */
export interface ReminderTarget {
  readonly config: { name: string; gatewayToken: string };
  pendingReminders(): Schedule[];
  cancelReminders(id?: string): number;
}

/** The host's assistants, by name (runtime/host.ts implements it). */
export interface ReminderDirectory {
  get(name: string): ReminderTarget | undefined;
}

/** Schedule ids are 8 lower-case hex digits (tools/schedule: they suffix /cancel_<id>). */
const REMINDER_ID = /^[0-9a-f]{8}$/;
const TELEGRAM_CHAT = /^telegram:/;

/** What the control plane passes on to the owner: who asked, where it goes, when it is next due (UTC). */
export const reminderView = (s: Schedule) => ({
  id: s.id,
  user: s.user,
  chatId: s.chat.replace(TELEGRAM_CHAT, ''),
  text: s.text,
  task: s.task,
  at: new Date(s.nextAt).toISOString(),
  cron: s.cron,
  timezone: s.timezone,
});

function routes(app: FastifyInstance, { prefix, onRequest, assistant }: AssistantScope<ReminderTarget>) {
  app.get(`${prefix}/reminders`, { onRequest }, async (req) => ({
    data: assistant(req).pendingReminders().map(reminderView),
  }));
  app.delete(`${prefix}/reminders`, { onRequest }, async (req) => ({
    data: { removed: assistant(req).cancelReminders() },
  }));
  app.delete<{ Params: { id: string } }>(`${prefix}/reminders/:id`, { onRequest }, async (req) => {
    const a = assistant(req);
    const { id } = req.params;
    if (!REMINDER_ID.test(id) || a.cancelReminders(id) === 0)
      // `missing` tells the control plane this 404 is the reminder's, not an assistant the host lacks.
      throw new AgentError('NOT_FOUND', 'No pending reminder has this id; it may have been delivered or cancelled.', {
        missing: 'reminder',
      });
    return { data: { removed: 1 } };
  });
}

export function hostReminderRoutes(app: FastifyInstance, host: ReminderDirectory, adminToken: string) {
  routes(app, hostScope(host, adminToken));
}

export function serveReminderRoutes(app: FastifyInstance, agent: ReminderTarget) {
  routes(app, serveScope(agent));
}
