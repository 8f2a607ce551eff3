// The model gateway has a listener of its own. Workers reach /gateway/v1 there (loopback for the
// local agent host; the Service's `gateway` port in Kubernetes, which no Ingress routes), and the
// public listener answers 404 for it: the gateway spends the operator's router credit, so only
// the network that runs the workers should even see it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

const gatewaySockets = new WeakSet<Socket>();

/**
 * Whether a request reached this process over the network on a listener other than the gateway's.
 * Requests made in-process (Fastify's inject in tests) have no network socket and are not public.
 */
export function cameInPublicly(raw: IncomingMessage): boolean {
  return raw.socket instanceof Socket && !gatewaySockets.has(raw.socket);
}

export interface GatewayListener {
  /** http://host:port of the listener, as a worker on this machine dials it. */
  url: string;
  close(): Promise<void>;
}

export async function startGatewayListener(app: FastifyInstance, host: string, port: number): Promise<GatewayListener> {
  await app.ready();
  const server: Server = createServer((req, res) => app.routing(req, res));
  server.on('connection', (socket) => gatewaySockets.add(socket));
  // Same slow-body bound as the public listener.
  server.requestTimeout = app.server.requestTimeout;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      ok();
    });
  });
  const addr = server.address() as AddressInfo;
  const shown =
    addr.address === '0.0.0.0' || addr.address === '::'
      ? '127.0.0.1'
      : addr.family === 'IPv6'
        ? `[${addr.address}]`
        : addr.address;
  return {
    url: `http://${shown}:${addr.port}`,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}
