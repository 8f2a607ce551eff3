// A WhatsApp Cloud API webhook body, cut into one update per message and per status change (Meta
// batches several into one POST, and may batch a retry differently): each is stored and answered
// once by its own id (wamid.…), whatever POST it came in. Each keeps the WhatsApp envelope, with
// the contacts (the sender's profile name) and only its own message or status.
import { AppError } from '../platform/errors/app-error.js';

export interface SplitUpdate {
  key: string;
  body: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const ID = /^[\x21-\x7e]{1,150}$/;

const refuse = (why: string) => new AppError('INVALID_REQUEST', `Not a WhatsApp Cloud API webhook: ${why}.`);

/**
 * The updates for `phoneNumberId` in `payload`; those of another number of the same Meta app are
 * left out (`skipped` counts them: that number's messages go to its own channel's webhook URL).
 */
export function splitWhatsAppPayload(
  payload: unknown,
  phoneNumberId: string,
): { updates: SplitUpdate[]; skipped: number } {
  if (!isObj(payload) || payload.object !== 'whatsapp_business_account')
    throw refuse('"object" must be "whatsapp_business_account"');
  if (!Array.isArray(payload.entry)) throw refuse('"entry" must be an array');
  const updates: SplitUpdate[] = [];
  let skipped = 0;
  for (const entry of payload.entry) {
    if (!isObj(entry) || !Array.isArray(entry.changes)) throw refuse('each entry needs a "changes" array');
    for (const change of entry.changes) {
      if (!isObj(change) || !isObj(change.value)) throw refuse('each change needs a "value" object');
      // Other fields (template status, account updates) are not conversations: acknowledged, not kept.
      if (change.field !== 'messages') continue;
      const value = change.value;
      const metadata = isObj(value.metadata) ? value.metadata : {};
      const items = [
        ...list(value.messages).map((m) => ({ m, key: isObj(m) ? m.id : undefined, field: 'messages' })),
        ...list(value.statuses).map((m) => ({
          m,
          key: isObj(m) && typeof m.id === 'string' ? `status:${m.id}:${String(m.status)}` : undefined,
          field: 'statuses',
        })),
      ];
      if (metadata.phone_number_id !== phoneNumberId) {
        skipped += items.length;
        continue;
      }
      for (const { m, key, field } of items) {
        if (typeof key !== 'string' || !ID.test(key)) throw refuse(`each of value.${field} needs an "id"`);
        const { messages: _m, statuses: _s, ...rest } = value;
        updates.push({
          key,
          body: {
            object: payload.object,
            entry: [{ id: entry.id, changes: [{ field: change.field, value: { ...rest, [field]: [m] } }] }],
          },
        });
      }
    }
  }
  return { updates, skipped };
}

function list(v: unknown): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw refuse('value.messages and value.statuses must be arrays');
  return v;
}
