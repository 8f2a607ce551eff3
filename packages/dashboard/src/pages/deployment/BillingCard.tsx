// "Billing" (DESIGN §9.3): a paid slot's subscription and "Manage billing", which opens where it is
// managed: Stripe's Customer Portal (cancel, card, invoices), or this server's billing page with
// local payments. What the owner does there comes back to this page's status by itself.
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Deployment } from '../../api/deployments';
import { ErrorNotice } from '../../components/ErrorNotice';
import { when } from '../../components/format';

export function BillingCard({ d }: { d: Deployment }) {
  const open = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/assistants/{deploymentId}/billing-portal', { params: { path: { deploymentId: d.id } } }),
      ),
    onSuccess: ({ url }) => window.location.assign(url),
  });
  return (
    <section aria-labelledby="billing-title" className="card">
      <h2 id="billing-title">Billing</h2>
      <dl className="record">
        <dt>Subscription</dt>
        <dd>{d.paymentStatus.replace('_', ' ')}</dd>
        <dt>{d.paymentStatus === 'canceled' ? 'Ended' : d.canceledAt ? 'Ends' : 'Renews'}</dt>
        <dd>
          {/* A cancellation at the period's end keeps the slot paid until then. */}
          {when(d.paymentStatus === 'canceled' ? (d.canceledAt ?? d.currentPeriodEnd) : d.currentPeriodEnd)}
        </dd>
      </dl>
      <ErrorNotice error={open.error} />
      <button type="button" className="secondary" onClick={() => open.mutate()} disabled={open.isPending}>
        {open.isPending ? 'Opening…' : 'Manage billing'}
      </button>
      <p className="muted small">Cancel, change the card or read invoices; a change shows here once it is made.</p>
    </section>
  );
}
