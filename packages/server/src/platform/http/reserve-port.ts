// PORT=0: a free port chosen before the runtime is built, so every link the runtime makes (the
// banner, checkout, invitations, OpenAPI's server) can name it. The port stays held until just
// before the API listens on it: the build binds ports of its own (the model gateway's listener on
// port 0), and the kernel would otherwise be free to hand one of them the port just released.
import { createServer } from 'node:net';
import { type Config, onChosenPort } from '../config/env.js';

interface ReservedPort {
  port: number;
  /** Frees the port for the API's own listen. */
  release(): Promise<void>;
}

/**
 * The configuration to build the runtime with, and what to call just before the API listens on
 * its port: with PORT=0, a port chosen and held now; otherwise the configuration as it is.
 */
export async function choosePort(config: Config): Promise<{ config: Config; release(): Promise<void> }> {
  if (config.port !== 0) return { config, release: async () => {} };
  const reserved = await reservePort(config.host);
  return { config: onChosenPort(config, reserved.port), release: reserved.release };
}

function reservePort(host: string): Promise<ReservedPort> {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      ok({ port, release: () => new Promise<void>((done) => probe.close(() => done())) });
    });
  });
}
