// The loopback fakes most agent test files share: a Bot API fake with the file's bots and a model
// provider fake, started before the file's first test and stopped after its last.
import { after, before } from 'node:test';
import type { AddressInfo } from 'node:net';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';

export function fakeTelegramBed(...botTokens: string[]): { tg: FakeTelegram; provider: FakeModelProvider } {
  const tg = new FakeTelegram();
  const provider = new FakeModelProvider();
  before(async () => {
    await tg.start();
    await provider.start();
    for (const token of botTokens) tg.addBot(token);
  });
  after(async () => {
    await tg.stop();
    await provider.stop();
  });
  return { tg, provider };
}

/** Polls `cond` every 20 ms; throws when it is still false after `ms`. */
export async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  await waitUntil(cond, 'condition', ms);
}

/** waitFor that names what it waited for when it gives up (default 15 s, for a whole bot's turn). */
export async function waitUntil(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Listens on an ephemeral loopback port and returns the base URL. */
export async function listenLoopback(app: {
  listen(o: { port: number; host: string }): Promise<unknown>;
  server: { address(): unknown };
}): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A model answer a test holds until it lets go: `{ until }` in the provider's queue, then `release()`. */
export function held() {
  let release!: () => void;
  const until = new Promise<void>((r) => {
    release = r;
  });
  return { until, release };
}
