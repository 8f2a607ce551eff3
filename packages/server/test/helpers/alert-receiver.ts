// A loopback alert receiver (ALERT_WEBHOOK_URL) that records what it gets and can answer 500 or
// hang (never answer) to show the service is unaffected.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { stopAfter } from './stop-all.js';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export class AlertReceiver {
  readonly received: Received[] = [];
  /** How the next requests are answered. */
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  url = '';
  private server?: Server;
  private hanging: ServerResponse[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: JSON.parse(body) });
        if (this.mode === 'hang') this.hanging.push(res);
        else res.writeHead(this.mode === 'ok' ? 200 : 500).end(this.mode);
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/alerts`;
    return this;
  }

  async waitFor(n: number, timeoutMs = 30_000): Promise<Received[]> {
    const end = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (Date.now() > end) throw new Error(`got ${this.received.length} alerts, wanted ${n}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.received;
  }

  async close() {
    for (const r of this.hanging) r.destroy();
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

/** A started receiver answering as `mode` says, closed after test `t`. */
export async function alertReceiverFor(t: TestContext, mode: AlertReceiver['mode'] = 'ok'): Promise<AlertReceiver> {
  const receiver = await new AlertReceiver().start();
  receiver.mode = mode;
  stopAfter(t, () => receiver.close());
  return receiver;
}
