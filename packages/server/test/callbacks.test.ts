// Deployment callbacks: Standard Webhooks signatures, retries from the outbox, no redirects,
// and the private-address checks at send time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { listen, close } from '@berth/testkit';
import { createPublicOnlyAgent, isPublicAddress } from '@berth/contracts/net';
import { hostname } from 'node:os';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { lookup } from 'node:dns/promises';
import { ownersWebhook, startE2E } from './helpers/e2e.js';
import { deliverCallback } from '../src/callbacks/deliver.js';
import { CALLBACK_TOTAL_SPAN_S, nextCallbackDelayMs } from '../src/callbacks/retry-schedule.js';
import { until } from './helpers/until.js';
import { makePendingJobsDue } from './helpers/due-jobs.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function receiver(answer: (n: number, path: string) => { status: number; location?: string }) {
  const got: Received[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    got.push({ path: req.url!, headers: req.headers, body });
    const a = answer(got.length, req.url!);
    res.writeHead(a.status, a.location ? { location: a.location } : {});
    res.end();
  });
  return { got, url: await listen(server), close: () => close(server) };
}

const waitFor = (cond: () => boolean, ms = 15_000) => until('the condition', () => cond() || undefined, ms);

test("every status change is delivered, signed with the user's secret (verified by standardwebhooks)", async () => {
  const r = await receiver(() => ({ status: 204 }));
  const e = await startE2E({ CALLBACK_ALLOW_INSECURE: 'true' });
  try {
    const bot = '7500000001:AAcallbackSignedDeliveryToken_abcdefghi';
    e.tg.addBot(bot);
    const id = await e.activate(bot, { callbackUrl: `${r.url}/hooks/berth` });
    await e.waitForStatus(id, ['active']);
    await waitFor(() => r.got.length >= 2);
    const wh = await ownersWebhook(e, id);
    const events = r.got.map((g) => wh.verify(g.body, g.headers as Record<string, string>) as any);
    assert.deepEqual(
      events.map((ev) => ev.data.status),
      ['deploying', 'active'],
    );
    for (const ev of events) {
      assert.equal(ev.type, 'deployment.status');
      assert.equal(ev.data.id, id);
      assert.deepEqual(Object.keys(ev.data).sort(), ['id', 'status', 'statusMessage', 'workerUrl']);
      assert.ok(!Number.isNaN(Date.parse(ev.timestamp)));
    }
    assert.equal(r.got[0]!.path, '/hooks/berth');
    assert.match(String(r.got[0]!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/=]+$/);
    assert.throws(
      () =>
        new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(
          r.got[0]!.body,
          r.got[0]!.headers as Record<string, string>,
        ),
      'another secret does not verify',
    );

    assert.equal((await e.api('POST', `/api/v1/assistants/${id}/stop`)).status, 200);
    await waitFor(() => r.got.length >= 3);
    assert.equal(
      (wh.verify(r.got[2]!.body, r.got[2]!.headers as Record<string, string>) as any).data.status,
      'stopped',
    );
  } finally {
    await e.close();
    await r.close();
  }
});

test('callbacks of one deployment are numbered and go out in order, even when the receiver is slow', async () => {
  const log: string[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    const ev = JSON.parse(body);
    log.push(`start ${ev.sequence} ${ev.data.status}`);
    // The first delivery is slow: a later event must not overtake it.
    if (ev.sequence === 1) await new Promise((r) => setTimeout(r, 800));
    log.push(`end ${ev.sequence}`);
    res.writeHead(204).end();
  });
  const url = await listen(server);
  const e = await startE2E({ CALLBACK_ALLOW_INSECURE: 'true' });
  try {
    const bot = '7500000009:AAcallbackOrderedDeliveryToken_abcdefgh';
    e.tg.addBot(bot);
    const id = await e.activate(bot, { callbackUrl: `${url}/ordered` });
    await e.waitForStatus(id, ['active']);
    assert.equal((await e.api('POST', `/api/v1/assistants/${id}/stop`)).status, 200);
    await waitFor(() => log.filter((l) => l.startsWith('end')).length >= 3);
    assert.deepEqual(log, ['start 1 deploying', 'end 1', 'start 2 active', 'end 2', 'start 3 stopped', 'end 3']);
    const attempts = await e.runtime.store.db
      .selectFrom('jobs')
      .select('attempts')
      .where('kind', '=', 'callback')
      .where('deployment_id', '=', id)
      .execute();
    assert.deepEqual(
      attempts.map((a) => Number(a.attempts)),
      [1, 1, 1],
      'waiting for its turn is not an attempt',
    );
  } finally {
    await e.close();
    await close(server);
  }
});

test('a failed delivery is retried with the same message id; a redirect is not followed', async () => {
  const r = await receiver((n, path) =>
    path === '/elsewhere'
      ? { status: 200 }
      : n === 1
        ? { status: 302, location: '/elsewhere' }
        : n === 2
          ? { status: 500 }
          : { status: 200 },
  );
  const e = await startE2E({ CALLBACK_ALLOW_INSECURE: 'true' });
  try {
    const bot = '7500000002:AAcallbackRetryDeliveryToken_abcdefghij';
    e.tg.addBot(bot);
    e.tg.broken.add('getMe'); // stays deploying: one event to follow
    const id = await e.activate(bot, { callbackUrl: `${r.url}/hook` });
    await waitFor(() => r.got.length >= 1);
    // Make each retry due now instead of in 5 s and 30 s. The job is rescheduled only after the
    // receiver's answer reached the control plane, a moment after the receiver counted the attempt:
    // a single hurry could come before it and change nothing (then the 30 s wait outlasted the test's,
    // seen in CI). So hurry until the next attempt arrives.
    const hurryUntil = async (attempts: number) => {
      const end = Date.now() + 15_000;
      while (r.got.length < attempts) {
        if (Date.now() > end) throw new Error(`attempt ${attempts} did not come`);
        await makePendingJobsDue(e.runtime, 'callback');
        await new Promise((ok) => setTimeout(ok, 50));
      }
    };
    await hurryUntil(2);
    await hurryUntil(3);
    assert.ok(!r.got.some((g) => g.path === '/elsewhere'), 'the redirect was not followed');
    assert.deepEqual(
      r.got.map((g) => g.path),
      ['/hook', '/hook', '/hook'],
    );
    const ids = new Set(r.got.map((g) => g.headers['webhook-id']));
    assert.equal(ids.size, 1, 'one message id across attempts, so receivers can dedupe');
    const job = await e.runtime.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'callback')
      .where('deployment_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(job.attempts), 3);
  } finally {
    await e.close();
    await r.close();
  }
});

// This machine's own name resolves to loopback through /etc/hosts: a real "name that points inside".
const selfName = hostname();
const selfResolves = await lookup(selfName).then(
  (a) => !isPublicAddress(a.address),
  () => false,
);

test('at send time: internal targets are refused, also when a name resolves inside', {
  skip: selfResolves ? false : `${selfName} does not resolve to an internal address here`,
}, async () => {
  // A raw TCP listener counts connections: the URLs are https, so an HTTP receiver would never see a
  // request even if the check were gone (the TLS handshake fails first). A connection is the leak.
  let connections = 0;
  const tcp = createNetServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const dispatcher = createPublicOnlyAgent();
  try {
    const port = (tcp.address() as AddressInfo).port;
    const base = { id: 'msg_1', timestamp: 1, body: '{}', signature: 'v1,x' };
    const literal = await deliverCallback({ ...base, url: `https://127.0.0.1:${port}/` }, dispatcher, false);
    assert.equal(literal.ok, false);
    assert.match((literal as { reason: string }).reason, /not a public address/);
    const mapped = await deliverCallback({ ...base, url: `https://[::ffff:127.0.0.1]:${port}/` }, dispatcher, false);
    assert.match((mapped as { reason: string }).reason, /not a public address/);
    const named = await deliverCallback({ ...base, url: `https://${selfName}:${port}/` }, dispatcher, false);
    assert.equal(named.ok, false);
    assert.match((named as { reason: string }).reason, /not a public address/);
    const http = await deliverCallback({ ...base, url: `http://example.com/` }, dispatcher, false);
    assert.equal(http.ok, false);
    assert.equal(connections, 0, 'nothing connected to the internal listener');
  } finally {
    await dispatcher.close();
    await new Promise((resolve) => tcp.close(resolve));
  }
});

test('retries go on for at least 24 hours, then stop', () => {
  assert.ok(CALLBACK_TOTAL_SPAN_S >= 24 * 3600, `${CALLBACK_TOTAL_SPAN_S} s`);
  assert.equal(nextCallbackDelayMs(1), 5000);
  let attempt = 1;
  while (nextCallbackDelayMs(attempt) !== undefined) attempt++;
  assert.ok(attempt > 10 && attempt < 20);
});
