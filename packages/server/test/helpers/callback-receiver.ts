// A loopback receiver of status callbacks that records every delivery (retries included), and the
// check that at-least-once never becomes more: one message per event, numbered 1..n, latest last.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';

export interface Delivery {
  webhookId: string;
  body: string;
  deploymentId: string;
  sequence: number;
  status: string;
}

export class CallbackReceiver {
  readonly deliveries: Delivery[] = [];
  url = '';
  private server?: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const event = JSON.parse(body);
        this.deliveries.push({
          webhookId: String(req.headers['webhook-id']),
          body,
          deploymentId: event.data.id,
          sequence: event.sequence,
          status: event.data.status,
        });
        res.end('ok');
      });
    }).listen(0, '127.0.0.1');
    await new Promise((r) => this.server!.once('listening', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
    return this;
  }

  close(): void {
    this.server?.close();
  }

  /** Distinct messages (a retry keeps its webhook-id and must carry the same body), per deployment, in sequence order. */
  messages(): Map<string, Delivery[]> {
    const byId = new Map<string, Delivery>();
    for (const d of this.deliveries) {
      const first = byId.get(d.webhookId);
      if (first) assert.equal(d.body, first.body, `a retry of ${d.webhookId} carries the same message`);
      else byId.set(d.webhookId, d);
    }
    const per = new Map<string, Delivery[]>();
    for (const d of byId.values()) per.set(d.deploymentId, [...(per.get(d.deploymentId) ?? []), d]);
    for (const list of per.values()) list.sort((a, b) => a.sequence - b.sequence);
    return per;
  }

  /**
   * Each event once: a deployment's messages are numbered 1..n with none missing or repeated, and
   * the last one tells the status it has now (when it still exists).
   */
  assertEachEventOnce(statuses: Map<string, string>): void {
    const per = this.messages();
    assert.ok(per.size > 0, 'callbacks were received');
    for (const [id, list] of per) {
      assert.deepEqual(
        list.map((d) => d.sequence),
        list.map((_, i) => i + 1),
        `${id}: each event once, none missing`,
      );
      const status = statuses.get(id);
      if (status) assert.equal(list.at(-1)!.status, status, `${id}: the latest callback tells the status`);
    }
  }
}

/**
 * A TCP port free right now on loopback, for a child process that must listen on a known port, and
 * often again on the same one (a restarted control plane). Picked below Linux's ephemeral range
 * (32768–60999): a port from that range, left free between two starts, is one any process's
 * `listen(0)` or outgoing connection may take meanwhile. lifecycle-crash.test's control plane,
 * restarted 50 times on one such port, once came back to a port another file's server held
 * (ECONNREFUSED, CI rehearsal I).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const s = createNetServer();
    const bound = await new Promise<boolean>((resolve) => {
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((r) => s.close(r));
    return port;
  }
}

/**
 * A loopback port that refuses connections: privileged (no test can listen there, and nothing on a
 * CI machine does), and not on the Fetch standard's list of bad ports, which fetch() refuses
 * without connecting ("bad port"; 9, discard, is on it): a client reaches the refusal it is tested for.
 */
export const REFUSED_PORT = 1021;

/** A request a recorder took: its headers and body as sent, for checking a signature. */
export interface Recorded {
  headers: Record<string, string>;
  body: string;
}

/** A loopback server that records every request whole and answers 204; `url` is its /hook. */
export async function startRecorder(): Promise<{ got: Recorded[]; url: string; close(): Promise<void> }> {
  const got: Recorded[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return { got, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}
