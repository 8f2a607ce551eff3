// The WhatsApp channel's Graph API client (channels/whatsapp/graph.ts) against FakeWhatsApp: a
// media file is fetched with the number's token from Meta's own URL, and a media URL on any other
// host is never sent the token (a forged or compromised answer cannot collect it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeWhatsApp, makePng } from '@berth/testkit';
import { Graph, MediaTooLarge } from '../src/channels/whatsapp/graph.js';

const wa = new FakeWhatsApp();
const elsewhere: IncomingMessage[] = [];
const other = createServer((req, res) => {
  elsewhere.push(req);
  res.end('stolen');
});
let otherUrl = '';
before(async () => {
  await wa.start();
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
after(async () => {
  await wa.stop();
  await new Promise((r) => other.close(r));
});

const graphOf = (apiRoot: string, n: { phoneNumberId: string; accessToken: string }) =>
  new Graph({
    apiRoot,
    phoneNumberId: n.phoneNumberId,
    accessToken: n.accessToken,
    signal: new AbortController().signal,
  });

test("a photo's bytes come from its media URL with the number's token", async () => {
  const n = wa.addNumber();
  const png = makePng();
  const { payload } = wa.messagePayload(
    n.phoneNumberId,
    { waId: '16505551234', name: 'A' },
    {
      image: { bytes: png, mimeType: 'image/png' },
    },
  );
  const mediaId = (payload.entry[0]!.changes[0]!.value as any).messages[0].image.id;
  const got = await graphOf(wa.url, n).media(mediaId, 5 * 1024 * 1024);
  assert.deepEqual(got.bytes, png);
  assert.equal(got.mimeType, 'image/png');
});

test('a media URL on another host is refused before any request reaches it', async () => {
  const n = wa.addNumber();
  // A Graph API stand-in whose media answer points elsewhere (what a compromised answer would do).
  const forged = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: `${otherUrl}/download`, mime_type: 'image/png', file_size: 10, id: '123' }));
  });
  await new Promise<void>((r) => forged.listen(0, '127.0.0.1', r));
  const root = `http://127.0.0.1:${(forged.address() as AddressInfo).port}/v21.0`;
  try {
    await assert.rejects(graphOf(root, n).media('123', 1024), /not Meta's/);
    assert.equal(elsewhere.length, 0, 'the other host was never called with the token');
  } finally {
    await new Promise((r) => forged.close(r));
  }
});

test('a file Meta announces as larger than the cap is refused without downloading it', async () => {
  const n = wa.addNumber();
  const { payload } = wa.messagePayload(
    n.phoneNumberId,
    { waId: '16505551234', name: 'A' },
    {
      document: { bytes: Buffer.alloc(4096, 65), mimeType: 'text/plain', filename: 'big.txt' },
    },
  );
  const mediaId = (payload.entry[0]!.changes[0]!.value as any).messages[0].document.id;
  const downloads = () => wa.requests.filter((r) => r.path.startsWith('/media/download/')).length;
  const before = downloads();
  await assert.rejects(graphOf(wa.url, n).media(mediaId, 1024), MediaTooLarge);
  assert.equal(downloads(), before);
});
