// A connection that has not sent a byte holds the public listener's close open. Node counts it
// active, not idle (its first request's headers timeout runs from the connect), so server.close()'s
// closeIdleConnections() leaves it, and close waits until the client gives up the socket (undici
// after 4 s; a browser's speculative preconnect for longer) or headersTimeout reaps it (a minute).
// SIGTERM then took that long to stop `berth`, and tests that close a control plane waited ~4 s
// for their own clients' spare sockets. As the listener closes, such connections are ended: no
// request was begun on them. A request in progress, however far it got, is still answered.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export function endUnusedConnectionsOnClose(app: FastifyInstance): void {
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', (done) => {
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
    done();
  });
}
