// A real agent host with FakeWhatsApp as Meta (hostBed), and what the WhatsApp tests do to it: the
// admin API's calls, an assistant PUT with its channels (waiting until its number was checked),
// and one message delivered as the control plane's ingress delivers it (POST /agents/{name}/updates).
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { FakeWhatsApp, type WhatsAppNumber, type WhatsAppUser } from '@berth/testkit';
import { hostBed } from './host-bed.js';
import { fakeModel } from './serve.js';
import { waitUntil } from './bed.js';

export function whatsappHostBed(adminToken: string, folderPrefix: string, opts: Parameters<typeof hostBed>[2] = {}) {
  const wa = new FakeWhatsApp();
  before(async () => {
    await wa.start();
  });
  after(async () => {
    await wa.stop();
  });
  const bed = hostBed(adminToken, folderPrefix, opts);
  let keySeq = 0;

  async function call(method: 'PUT' | 'POST' | 'GET' | 'DELETE', path: string, body?: unknown) {
    const res = await request(`${bed.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  }

  /** The worker's channel entry for a number of the fake. */
  const whatsapp = (n: WhatsAppNumber) => ({
    type: 'whatsapp',
    phoneNumberId: n.phoneNumberId,
    accessToken: n.accessToken,
    apiRoot: wa.url,
  });

  async function putAgent(name: string, channels: object[], extra: Record<string, unknown> = {}) {
    const res = await call('PUT', `/agents/${name}`, {
      gatewayToken: `gw-${name}-0123456789abcdef`,
      model: fakeModel(bed.provider.url),
      channels,
      ...extra,
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    await waitUntil(() => {
      const state = bed.host.get(name)?.channel('whatsapp')?.health().state;
      return state === 'connected' || state === 'failed';
    }, 'the WhatsApp channel checked');
  }

  /** An assistant `name` on a WhatsApp number of its own (the number it resolves with), connected. */
  async function numberedAgent(name: string, extra: Record<string, unknown> = {}) {
    const n = wa.addNumber();
    await putAgent(name, [whatsapp(n)], extra);
    return n;
  }

  /** What the ingress delivers for one message of `from` (the update as stored, per message). */
  async function deliver(
    name: string,
    n: WhatsAppNumber,
    from: WhatsAppUser,
    inbound: Parameters<FakeWhatsApp['messagePayload']>[2],
  ) {
    const { id, payload } = wa.messagePayload(n.phoneNumberId, from, inbound);
    // The fake's 24-hour rule reads when the user last wrote, as Meta's does.
    wa.lastWroteAt(n.phoneNumberId, from.waId, Date.now());
    const res = await call('POST', `/agents/${name}/updates`, {
      channel: 'whatsapp',
      channelId: `ch-${name}`,
      updateKey: `${id}-${keySeq++}`,
      update: payload,
    });
    return { id, res };
  }

  const textTo = (to: string, pred: (body: string) => boolean = () => true) =>
    wa.waitForSent((m) => m.to === to && m.type === 'text' && pred(m.body.text.body));

  return { wa, bed, call, whatsapp, putAgent, numberedAgent, deliver, textTo };
}
