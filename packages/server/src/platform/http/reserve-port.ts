// PORT=0: a free port chosen before the runtime is built, so every link the runtime makes (the
// banner, checkout, invitations, OpenAPI's server) can name it. The port stays held until just
// before the API listens on it: the build binds ports of its own (the model gateway's listener on
// port 0), and the kernel would otherwise be free to hand one of them the port just released.
import { createServer } from 'node:net';

export interface ReservedPort {
  port: number;
  /** Frees the port for the API's own listen. */
  release(): Promise<void>;
}

export function reservePort(host: string): Promise<ReservedPort> {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      ok({ port, release: () => new Promise<void>((done) => probe.close(() => done())) });
    });
  });
}
