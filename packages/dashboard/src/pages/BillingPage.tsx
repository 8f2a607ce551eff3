// The local payment provider's billing page (DESIGN §9.3): what Stripe's Customer Portal offers,
// for a server that takes no card payments: the slot's subscription and its cancellation, applied as
// a provider's cancellation is (the slot is canceled and its assistant stops; its users' data stays).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useDeployment } from '../api/deployments';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { when } from '../components/format';

export function BillingPage() {
  const { id = '' } = useParams();
  const query = useDeployment(id);
  const d = query.data;
  const qc = useQueryClient();
  const [asking, setAsking] = useState(false);
  const cancel = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/assistants/{deploymentId}/subscription/cancel', { params: { path: { deploymentId: id } } }),
      ),
    onSuccess: () => {
      setAsking(false);
      return qc.invalidateQueries({ queryKey: ['deployments'] });
    },
  });
  if (query.error) return <ErrorNotice error={query.error} title="This deployment could not be loaded." />;
  if (!d) return <p className="muted">Loading…</p>;
  return (
    <>
      <p className="crumbs">
        <Link to="/">Deployments</Link> / <Link to={`/deployments/${d.id}`}>{d.name || 'New slot'}</Link> /{' '}
        <span aria-current="page">Billing</span>
      </p>
      <h1>Billing</h1>
      <section aria-labelledby="sub-title" className="card">
        <h2 id="sub-title">Subscription</h2>
        <dl className="record">
          <dt>Plan</dt>
          <dd>{d.apiMode}</dd>
          <dt>Status</dt>
          <dd>{d.paymentStatus.replace('_', ' ')}</dd>
          <dt>{d.paymentStatus === 'canceled' ? 'Canceled' : 'Paid until'}</dt>
          <dd>{when(d.paymentStatus === 'canceled' ? d.canceledAt : d.currentPeriodEnd)}</dd>
        </dl>
        <p className="muted small">
          This server takes no card payments, so there is no card to change and no invoice to read here.
        </p>
        <ErrorNotice error={asking ? undefined : cancel.error} />
        {d.paymentStatus === 'canceled' ? (
          <p className="notice">The subscription is canceled; the assistant is stopped and its users' data is kept.</p>
        ) : (
          <button type="button" className="danger" onClick={() => setAsking(true)}>
            Cancel subscription
          </button>
        )}
      </section>
      <ConfirmDialog
        open={asking}
        title="Cancel this subscription?"
        confirmLabel="Cancel subscription"
        danger
        busy={cancel.isPending}
        onConfirm={() => cancel.mutate()}
        onCancel={() => {
          setAsking(false);
          cancel.reset();
        }}
      >
        <p>The assistant stops answering now. Its conversations are kept; a new slot is needed to run it again.</p>
        <ErrorNotice error={cancel.error} />
      </ConfirmDialog>
    </>
  );
}
