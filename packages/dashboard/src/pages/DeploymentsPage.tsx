// Every deployment of the caller (or of the organization acted as), live; and buying a new slot.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { checkoutLinks, PLANS, useDeployments, usePlans, type ApiMode, type Plan } from '../api/deployments';
import { ErrorNotice } from '../components/ErrorNotice';
import { usd, when } from '../components/format';
import { PaymentBadge, StatusBadge } from '../components/StatusBadge';
import { Table } from '../components/Table';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';

export function DeploymentsPage() {
  const [pages, setPages] = useState(1);
  const query = useDeployments(pages);
  const list = { ...query, data: query.data?.items };
  return (
    <>
      <div className="row spread">
        <h1>Deployments</h1>
        <p className="muted small" aria-live="off">
          Updates by itself every few seconds.
        </p>
      </div>
      {list.error && <ErrorNotice error={list.error} title="The deployments could not be loaded." />}
      {list.data && list.data.length === 0 && (
        <div className="empty">
          <p>
            <strong>No deployments yet.</strong> Buy a slot below, pay at checkout, then activate it with your bot
            token.
          </p>
        </div>
      )}
      {list.data && list.data.length > 0 && (
        <Table caption="Deployments, newest first" columns={['Name', 'Status', 'Payment', 'Plan', 'Model', 'Created']}>
          {list.data.map((d) => (
            <tr key={d.id}>
              <th scope="row">
                <Link to={`/deployments/${d.id}`}>{d.name || `Slot ${d.id.slice(0, 8)}`}</Link>
              </th>
              <td>
                <StatusBadge status={d.status} />
              </td>
              <td>
                <PaymentBadge status={d.paymentStatus} />
              </td>
              <td>{d.apiMode}</td>
              <td className="mono">{d.modelId || '—'}</td>
              <td>{when(d.createdAt)}</td>
            </tr>
          ))}
        </Table>
      )}
      {query.data?.more && (
        <p>
          <button type="button" className="secondary" onClick={() => setPages(pages + 1)}>
            Show older deployments
          </button>
        </p>
      )}
      {list.isPending && <p className="muted">Loading deployments…</p>}
      <BuySlot />
    </>
  );
}

function priceText(plan: Plan | undefined): string {
  if (!plan) return '';
  const price = plan.price;
  const cost = price
    ? `${new Intl.NumberFormat(undefined, { style: 'currency', currency: price.currency.toUpperCase() }).format(price.amount)}${price.interval ? ` / ${price.interval}` : ''}`
    : 'No charge on this server';
  const credits = plan.allowanceUsd === null ? '' : `, ${usd(plan.allowanceUsd)} of model credits a month`;
  return `${cost}${credits}`;
}

function BuySlot() {
  const [mode, setMode] = useState<ApiMode>('managed');
  const plans = usePlans().data;
  const qc = useQueryClient();
  const buy = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/assistants/purchase', { body: { apiMode: mode } })),
    onSuccess: (res) => {
      checkoutLinks.save(res.deploymentId, res.checkoutUrl);
      qc.invalidateQueries({ queryKey: ['deployments'] });
      // The button says where it goes: the checkout (local or the payment provider's), which leads
      // back to the slot's page once paid. The slot's page also offers the link, for later.
      window.location.assign(res.checkoutUrl);
    },
  });
  return (
    <section aria-labelledby="buy-title" className="card">
      <h2 id="buy-title">Buy a slot</h2>
      <Form onSubmit={() => buy.mutate()}>
        <fieldset className="plans">
          <legend>Plan</legend>
          {PLANS.map((p) => (
            <label key={p.mode} className="plan">
              <input
                type="radio"
                name="plan"
                value={p.mode}
                checked={mode === p.mode}
                onChange={() => setMode(p.mode)}
              />
              <span>
                <strong>{p.title}</strong>
                <span className="muted small">{p.text}</span>
                <span className="price" data-testid={`price-${p.mode}`}>
                  {priceText(plans?.find((x) => x.mode === p.mode))}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
        <ErrorNotice error={buy.error} />
        <SubmitButton pending={buy.isPending} busy="Buying…">
          Buy and go to checkout
        </SubmitButton>
      </Form>
    </section>
  );
}
