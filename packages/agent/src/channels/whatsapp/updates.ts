// What the control plane's ingress delivers for WhatsApp: Meta's webhook envelope cut to one
// message (or one status change) each, `entry[].changes[].value.messages[]` with its contacts.
// Read defensively: the ingress checked the shape's outline, not every field a message may hold.

interface WaMedia {
  id: string;
  mime_type?: string;
  caption?: string;
}

/** One message of `value.messages[]` (the fields Berth reads). */
export interface WaMessage {
  from: string;
  id: string;
  timestamp?: string;
  type: string;
  text?: { body: string };
  image?: WaMedia;
  audio?: WaMedia & { voice?: boolean };
  document?: WaMedia & { filename?: string };
}

export interface WaIncoming {
  message: WaMessage;
  /** The sender's profile name, when Meta sent their contact. */
  name: string | undefined;
  /** When the user wrote (Meta's timestamp, epoch ms), else undefined. */
  at: number | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: Meta's JSON, each field checked where it is read
type Loose = Record<string, any>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null;

/** The messages of an update addressed to `phoneNumberId`; status changes and others' numbers are none. */
export function messagesOf(update: unknown, phoneNumberId: string): WaIncoming[] {
  const out: WaIncoming[] = [];
  const entries = isObject(update) && Array.isArray(update.entry) ? update.entry : [];
  for (const entry of entries) {
    const changes = isObject(entry) && Array.isArray(entry.changes) ? entry.changes : [];
    for (const change of changes) {
      const value = isObject(change) ? change.value : undefined;
      if (!isObject(value) || value.metadata?.phone_number_id !== phoneNumberId) continue;
      const contacts: unknown[] = Array.isArray(value.contacts) ? value.contacts : [];
      for (const m of Array.isArray(value.messages) ? value.messages : []) {
        if (!isObject(m) || typeof m.from !== 'string' || !/^[0-9]{1,20}$/.test(m.from)) continue;
        if (typeof m.id !== 'string' || typeof m.type !== 'string') continue;
        const contact = contacts.find((c) => isObject(c) && c.wa_id === m.from) as Loose | undefined;
        const name = typeof contact?.profile?.name === 'string' ? contact.profile.name.slice(0, 100) : undefined;
        const seconds = Number(m.timestamp);
        out.push({ message: m as WaMessage, name, at: Number.isFinite(seconds) ? seconds * 1000 : undefined });
      }
    }
  }
  return out;
}
