import type { PlanPrice } from '../port.js';
import type { FastifyReply } from 'fastify';
import type { Deployment } from '../../domain/deployment.js';

/**
 * The pages carry no script; their one form posts back here. No framing: a page with a Pay button
 * inside another site's frame is a click away from a payment the user did not mean.
 */
export const CHECKOUT_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Headers of every checkout page: HTML, never cached, under the CSP above. */
export function checkoutPageHeaders(reply: FastifyReply): void {
  reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', CHECKOUT_PAGE_CSP)
    .header('x-content-type-options', 'nosniff');
}

const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PRICES: Record<string, string> = {
  byok: 'Bring your own key',
  managed: 'Managed (monthly credits included)',
  unlimited: 'Unlimited',
};

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Berth</title>
<style>
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,sans-serif;background:#f4f5f7;color:#1d2330;margin:0;display:grid;place-items:center;min-height:100vh;padding:1rem}
main{background:#fff;border-radius:12px;box-shadow:0 2px 16px #0001;padding:clamp(1.25rem,5vw,2rem) clamp(1.25rem,6vw,2.5rem);max-width:28rem;width:100%;min-width:0}
code{overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:0 0 1rem}dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.4rem 1rem;margin:0 0 1.5rem}
dt{color:#667}dd{margin:0;font-family:ui-monospace,monospace;word-break:break-all}
button{background:#2155d6;color:#fff;border:0;border-radius:8px;padding:.8rem 1.4rem;font-size:1rem;cursor:pointer;width:100%}
.ok{color:#167a3e}p{line-height:1.5}
</style></head><body><main>${body}</main></body></html>`;
}

/** "$9.99 a month", or the words for a slot this server does not charge for. */
export function priceLine(price: PlanPrice | null): string {
  if (!price) return 'no charge on this server';
  const amount = new Intl.NumberFormat('en', { style: 'currency', currency: price.currency.toUpperCase() }).format(
    price.amount,
  );
  return price.interval ? `${amount} a ${price.interval}` : amount;
}

export function checkoutPage(
  d: Deployment,
  url: string,
  price: PlanPrice | null = null,
  allowanceUsd?: number,
): string {
  const credits =
    allowanceUsd === undefined ? '' : `<dt>Model credits</dt><dd>$${allowanceUsd.toFixed(2)} a month</dd>`;
  return layout(
    'Checkout',
    `<h1>Checkout</h1>
<dl><dt>Slot</dt><dd>${esc(d.id)}</dd><dt>Plan</dt><dd>${esc(PRICES[d.apiMode] ?? d.apiMode)}</dd><dt>Price</dt><dd id="price">${esc(priceLine(price))}</dd>${credits}<dt>Billing</dt><dd>monthly</dd></dl>
<form method="post" action="${esc(url.replace(/\/+$/, ''))}/complete"><button type="submit" id="pay">Pay</button></form>`,
  );
}

export function paidPage(d: Deployment): string {
  return layout(
    'Paid',
    `<h1 class="ok">Payment complete</h1>
<p>Slot <code>${esc(d.id)}</code> is paid until ${esc(d.currentPeriodEnd.slice(0, 10))}.</p>
<p><a href="/deployments/${esc(d.id)}" id="continue">Continue in the dashboard</a> to activate it, or run
<code>berth assistants activate ${esc(d.id)}</code>.</p>`,
  );
}

export function notFoundPage(): string {
  return layout(
    'Not found',
    '<h1>Checkout not found</h1><p>This checkout link is unknown. Purchase a slot to get a new one.</p>',
  );
}

export function confirmingPage(d: Deployment): string {
  return layout(
    'Confirming',
    `<meta http-equiv="refresh" content="3">
<h1>Confirming your payment…</h1>
<p>The payment provider has not confirmed slot <code>${esc(d.id)}</code> yet. This page refreshes by itself.</p>`,
  );
}

export function canceledPage(): string {
  return layout(
    'Checkout canceled',
    `<h1>Checkout canceled</h1>
<p>Nothing was charged and the slot stays unpaid. Open the slot's checkout link again, or purchase a new slot.</p>`,
  );
}

/** A slot whose subscription was canceled or is past due: the local checkout cannot revive it. */
export function unpayablePage(d: Deployment): string {
  return layout(
    'Not payable',
    `<h1>This slot cannot be paid here</h1>
<p>Slot <code>${esc(d.id)}</code> is ${esc(d.paymentStatus.replace('_', ' '))}. Purchase a new slot instead.</p>`,
  );
}
