// WhatsApp on WORKER_BACKEND=kubernetes, in both placements (DESIGN §9.1): a number added to an
// active assistant reaches its pod live, and the pod answers through the operator's Graph API root
// (WHATSAPP_API_ROOT in every agent pod's environment, here FakeWhatsApp), not Meta's default.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeWhatsApp, type WhatsAppNumber } from '@berth/testkit';
import { activeBot, attachWhatsApp, type E2E } from './helpers/e2e.js';
import { KUBE_NS as NS, restartPodReading, startKubernetesE2E, type KubernetesE2E } from './helpers/fake-cluster.js';

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
    let number: WhatsAppNumber;

    before(async () => {
      wa = await new FakeWhatsApp().start();
      k = await startKubernetesE2E({ KUBERNETES_PLACEMENT: placement, WHATSAPP_API_ROOT: wa.url });
      ({ e } = k);
      id = await activeBot(e, BOT, {}, 60_000);
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
      number = wa.addNumber();
      await attachWhatsApp(e, wa, id, number);
      e.provider.queue.push({ content: 'Hello from the cluster, on WhatsApp.' });
      const sent = await wa.userSends(number.phoneNumberId, alice, { text: 'hi' });
      assert.equal(sent.status, 200, sent.body);
      const answer = await wa.waitForSent((m) => m.to === alice.waId && m.type === 'text', 20_000);
      assert.equal(answer.body.text.body, 'Hello from the cluster, on WhatsApp.');
    });

    if (placement === 'dedicated')
      test('a restarted pod still answers on the number added live; its token only in the Secret', async () => {
        const worker = `asst-${id.toLowerCase()}`;
        const kept = JSON.parse(
          Buffer.from(k.api.get('Secret', NS, worker)!.data!.channels!, 'base64').toString('utf8'),
        );
        assert.deepEqual(
          kept.map((c: { type: string }) => c.type),
          ['whatsapp'],
        );
        for (const o of k.api.all().filter((x) => x.kind !== 'Secret'))
          assert.ok(!JSON.stringify(o).includes(number.accessToken), `${o.kind}/${o.metadata.name} carries the token`);
        // The Deployment gained the document's reference (one roll); then its pod dies.
        await restartPodReading(k, 'AGENT_CHANNELS', 'a pod that reads its channels');
        e.provider.queue.push({ content: 'Still here after the restart.' });
        const sent = await wa.userSends(number.phoneNumberId, alice, { text: 'still there?' });
        assert.equal(sent.status, 200, sent.body);
        const answer = await wa.waitForSent(
          (m) => m.to === alice.waId && m.body.text?.body === 'Still here after the restart.',
          30_000,
        );
        assert.ok(answer);
      });
  });
}
