// WhatsApp on WORKER_BACKEND=kubernetes, in both placements (DESIGN §9.1): a number added to an
// active assistant reaches its pod live, and the pod answers through the operator's Graph API root
// (WHATSAPP_API_ROOT in every agent pod's environment, here FakeWhatsApp), not Meta's default.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeWhatsApp } from '@berth/testkit';
import type { E2E } from './helpers/e2e.js';
import { KUBE_NS as NS, startKubernetesE2E, type KubernetesE2E } from './helpers/fake-cluster.js';

const alice = { waId: '16505550123', name: 'Alice' };

for (const placement of ['dedicated', 'shared'] as const) {
  describe(`WhatsApp on Kubernetes, ${placement} placement`, () => {
    const BOT =
      placement === 'shared'
        ? '7200000081:AAkubeWhatsAppSharedBotTokenForTests_'
        : '7200000082:AAkubeWhatsAppDedicatedBotTokenForTes';
    let k: KubernetesE2E;
    let e: E2E;
    let wa: FakeWhatsApp;
    let id: string;

    before(async () => {
      wa = await new FakeWhatsApp().start();
      k = await startKubernetesE2E({ KUBERNETES_PLACEMENT: placement, WHATSAPP_API_ROOT: wa.url });
      ({ e } = k);
      e.tg.addBot(BOT);
      id = await e.activate(BOT);
      const view = await e.waitForStatus(id, ['active', 'failed'], 60_000);
      assert.equal(view.status, 'active', view.statusMessage);
    });
    after(async () => {
      await k?.close();
      await wa?.stop();
    });

    test('the pods know the operator’s Graph API root', () => {
      const kind = placement === 'dedicated' ? 'Deployment' : 'StatefulSet';
      const name = placement === 'dedicated' ? `asst-${id.toLowerCase()}` : 'berth-agent-host';
      const workload = k.api.get(kind, NS, name) as unknown as {
        spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } } };
      };
      const env = workload.spec.template.spec.containers[0]!.env;
      assert.equal(env.find((v) => v.name === 'WHATSAPP_API_ROOT')?.value, wa.url);
    });

    test('a number added to the running assistant answers from its pod', async () => {
      const number = wa.addNumber();
      const res = await e.api('PUT', `/api/v1/assistants/${id}/channels/whatsapp`, {
        phoneNumberId: number.phoneNumberId,
        accessToken: number.accessToken,
        appSecret: number.appSecret,
      });
      assert.equal(res.status, 200, res.text);
      const { webhookUrl, verifyToken } = res.json.data.details;
      await wa.subscribe(number.phoneNumberId, `${e.url}${new URL(webhookUrl).pathname}`, verifyToken);
      e.provider.queue.push({ content: 'Hello from the cluster, on WhatsApp.' });
      const sent = await wa.userSends(number.phoneNumberId, alice, { text: 'hi' });
      assert.equal(sent.status, 200, sent.body);
      const answer = await wa.waitForSent((m) => m.to === alice.waId && m.type === 'text', 20_000);
      assert.equal(answer.body.text.body, 'Hello from the cluster, on WhatsApp.');
    });
  });
}
