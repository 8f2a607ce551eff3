// Telegram in webhook mode on WORKER_BACKEND=kubernetes (DESIGN §9.1), in both placements: the
// worker's bot points its webhook at the control plane's ingress with its secret, a user's message
// goes Telegram → ingress (stored) → the pod → answer, once, and nobody polls. A dedicated pod
// carries the webhook secret in its Secret, referenced by key, never as a value in its spec; a
// stop deletes the webhook.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeKubernetes } from '@berth/testkit';
import { activeBot, type E2E } from './helpers/e2e.js';
import { freePort } from './helpers/callback-receiver.js';
import { eventually } from './helpers/eventually.js';
import { KUBE_NS as NS, startKubernetesE2E, type KubernetesE2E } from './helpers/fake-cluster.js';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

for (const placement of ['dedicated', 'shared'] as const) {
  describe(`Telegram webhook mode on Kubernetes, ${placement} placement`, () => {
    const BOT =
      placement === 'shared'
        ? '7200000071:AAkubeWebhookSharedBotTokenForTests_x'
        : '7200000072:AAkubeWebhookDedicatedBotTokenForTest';
    let k: KubernetesE2E;
    let api: FakeKubernetes;
    let e: E2E;
    let id: string;

    before(async () => {
      const port = await freePort();
      k = await startKubernetesE2E({
        KUBERNETES_PLACEMENT: placement,
        TELEGRAM_DELIVERY: 'webhook',
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      });
      ({ api, e } = k);
      e.tg.localBotApi = true;
      e.tg.webhookRetryMs = 50;
      id = await activeBot(e, BOT, {}, 60_000);
    });
    after(async () => k?.close());

    const webhookInfo = async () =>
      ((await (await fetch(`${e.tg.url}/bot${BOT}/getWebhookInfo`)).json()) as { result: any }).result;

    test('the bot delivers to the ingress; a message is answered once through it and nobody polls', async () => {
      const info = await eventually(webhookInfo, (i) => i.url !== '');
      assert.equal(info.url, `${e.url}/hooks/telegram/${id}`);
      e.provider.queue.push({ content: 'Hello from the cluster, by webhook.' });
      e.tg.userSends(BOT, 7101, { text: 'hi' });
      await e.tg.waitForSent((m) => m.chat_id === 7101 && m.text === 'Hello from the cluster, by webhook.', 20_000);
      assert.equal(e.tg.polls(BOT), 0, 'no long poll');
      const rows = await eventually(
        () => e.runtime.store.db.selectFrom('channel_updates').selectAll().execute(),
        (r) => r.length === 1 && r[0]!.delivered_at !== null,
      );
      assert.equal(rows[0]!.type, 'telegram');
      assert.equal(e.tg.sent.filter((m) => m.chat_id === 7101).length, 1);
    });

    if (placement === 'dedicated') {
      test("the pod's webhook secret is in its Secret, referenced by key; its URL is plain", () => {
        const deploy = api.get('Deployment', NS, `asst-${id.toLowerCase()}`) as unknown as {
          spec: { template: { spec: { containers: Array<{ env: EnvVar[] }> } } };
        };
        const env = deploy.spec.template.spec.containers[0]!.env;
        assert.equal(env.find((v) => v.name === 'TELEGRAM_WEBHOOK_URL')?.value, `${e.url}/hooks/telegram/${id}`);
        const secret = env.find((v) => v.name === 'TELEGRAM_WEBHOOK_SECRET')!;
        assert.equal(secret.value, undefined, 'never a value in the pod spec');
        assert.equal(secret.valueFrom?.secretKeyRef?.key, 'telegram-webhook-secret');
      });
    }

    test('stopping the assistant deletes its webhook', async () => {
      assert.equal((await e.api('POST', `/api/v1/assistants/${id}/stop`)).status, 200);
      await e.waitForStatus(id, ['stopped'], 30_000);
      await eventually(webhookInfo, (i) => i.url === '');
    });
  });
}
