// The workers backend of bench:scale's control plane: an in-process stand-in for an agent host that
// starts empty (like a host after a restart), "creates" a worker in a microtask and lists the
// workers it made. It keeps each name (`asst-<uuid>`) as 16 bytes in one growing buffer, not as a
// string in a Set (about 10 MB at 100,000), so the RSS the bench reports is the control plane's
// own; a list is answered a page at a time (WORKER_PAGE names), each parsed from the slice of JSON
// text an agent host would answer (one JSON.parse a page, as the HTTP backend does: building the
// strings one by one here cost 2–4.5 µs a name, which the bench then counted as the reconciler's).
import { WORKER_PAGE, type WorkersPort } from '@berth/server';

const PREFIX = 'asst-';
/** `,"asst-<uuid>"`: one name's bytes in the JSON text. */
const ENTRY = 3 + PREFIX.length + 36;
const UUID = /^asst-([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;

function compactNames() {
  let bytes = Buffer.alloc(16 * 1024);
  let count = 0;
  /** The names as a JSON array's text without its closing bracket, as a host's list answer holds them. */
  let json = Buffer.alloc(64 * 1024);
  let jsonLength = 0;
  let jsonStale = false;
  const appendJson = (n: string) => {
    const need = jsonLength + n.length + 3;
    if (need > json.length)
      json = Buffer.concat([json.subarray(0, jsonLength), Buffer.alloc(Math.max(need, json.length))]);
    jsonLength += json.write(`${jsonLength ? ',' : '['}"${n}"`, jsonLength, 'latin1');
  };
  const slots = new Map<string, number>(); // only names that are not `asst-<uuid>` (none in the bench)
  const hex = (i: number) => bytes.toString('hex', i * 16, i * 16 + 16);
  const name = (i: number) => {
    const h = hex(i);
    return `${PREFIX}${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  const find = (n: string) => {
    const m = UUID.exec(n);
    if (!m) return slots.get(n) ?? -1;
    const key = Buffer.from(m.slice(1).join(''), 'hex');
    for (let i = 0; i < count; i++) if (key.equals(bytes.subarray(i * 16, i * 16 + 16))) return i;
    return -1;
  };
  return {
    add(n: string) {
      const m = UUID.exec(n);
      if (!m) throw new Error(`bench workers expect asst-<uuid> names, got ${n}`);
      if (count * 16 === bytes.length) bytes = Buffer.concat([bytes, Buffer.alloc(bytes.length)]);
      bytes.write(m.slice(1).join(''), count * 16, 'hex');
      count++;
      appendJson(n);
    },
    /** Linear, but the bench deletes none and applies no settings. */
    delete(n: string) {
      const i = find(n);
      if (i < 0) return false;
      bytes.copy(bytes, i * 16, (count - 1) * 16, count * 16);
      count--;
      jsonStale = true;
      return true;
    },
    has: (n: string) => find(n) >= 0,
    /**
     * Names `from` to `from + limit` (in the order made: the cursor is an index), parsed from the
     * JSON text a host's page would hold. Every entry is `,"asst-<uuid>"` (or `[` first): 44 bytes.
     */
    page: (from: number, limit: number): { names: string[]; next?: string } => {
      if (jsonStale) {
        jsonLength = 0;
        jsonStale = false;
        for (let i = 0; i < count; i++) appendJson(name(i));
      }
      const to = Math.min(count, from + limit);
      const names = to > from ? JSON.parse(`[${json.toString('latin1', from * ENTRY + 1, to * ENTRY)}]`) : [];
      return to < count ? { names, next: String(to) } : { names };
    },
  };
}

export function inProcessWorkers(base: string): WorkersPort & { created: () => number } {
  const made = compactNames();
  let created = 0;
  return {
    name: 'bench-in-process',
    created: () => created,
    async createWorker(spec) {
      // The bench's restoring pass creates only missing workers, so no name comes twice (and a
      // look-up here would be linear).
      made.add(spec.workerName);
      created++;
      return { workerUrl: `${base}/agents/${spec.workerName}` };
    },
    async deleteWorker(worker) {
      return made.delete(worker) ? 'deleted' : 'not_found';
    },
    async workerHealth() {
      return { ready: true, failed: false, reason: null };
    },
    async listWorkers(page = {}) {
      return made.page(Number(page.cursor ?? 0), Math.min(page.limit ?? WORKER_PAGE, WORKER_PAGE));
    },
    async applySettings(worker) {
      return made.has(worker) ? 'applied' : 'not_found';
    },
    async assistantCall() {
      return { status: 404, json: undefined };
    },
  };
}
