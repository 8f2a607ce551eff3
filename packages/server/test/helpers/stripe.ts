// PAYMENT_PROVIDER=stripe against the loopback Stripe fake: a harness configured for it, and its
// webhooks signed as Stripe signs them (stripe.webhooks.generateTestHeaderString).
import Stripe from 'stripe';
import { FakeStripe } from '@berth/testkit';
import { startHarness, type Harness } from './harness.js';
import { orStop } from './stop-all.js';

export const WEBHOOK_SECRET = 'whsec_test_secret_for_berth_webhooks';
const signer = new Stripe('sk_test_signer_only');

/** A FakeStripe and a harness that sells through it (the byok price set; `env` adds to or overrides that). */
export async function startStripeHarness(env: Record<string, string> = {}): Promise<{ fake: FakeStripe; h: Harness }> {
  const fake = await new FakeStripe().start();
  return orStop(
    () => fake.stop(),
    async () => ({
      fake,
      h: await startHarness({
        PAYMENT_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: fake.secretKey,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_BASE: fake.url,
        STRIPE_PRICE_BYOK: 'price_byok_1',
        ...env,
      }),
    }),
  );
}

/** Posts event `ev` to `h`'s Stripe webhook, signed with `secret` (at `timestamp`, in seconds, if given). */
export function deliverStripeEvent(h: Harness, ev: object, secret = WEBHOOK_SECRET, timestamp?: number) {
  const payload = JSON.stringify(ev);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
  return h.inject({
    method: 'POST',
    url: '/api/webhooks/stripe',
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
    payload,
  });
}
