import type { FastifyInstance, FastifyReply } from 'fastify';
import { cardOutcome, type FieldError, parseCard } from './cards.ts';
import { attachPaymentMethod, createCardPaymentMethod } from './customers.ts';
import { StripeApiError } from './errors.ts';
import { field, formFields, html, layout, type Raw } from './html.ts';
import { defaultPaymentMethod, offSessionOutcome } from './invoices.ts';
import { formatDate, formatInterval, formatMoney } from './money.ts';
import { invoicePdf } from './pdf.ts';
import { AUTOMATIC, nowSeconds, type StripeState } from './state.ts';
import { cancelAtPeriodEnd, payOpenInvoice } from './subscriptions.ts';
import type { Customer, Invoice, PaymentMethod, PortalSession, Subscription } from './types.ts';

/** A portal link works for a day (Stripe's expire sooner; the demo keeps tabs open longer). */
const PORTAL_LIFETIME = 24 * 3600;

const STATUS_LABEL: Record<string, [string, string]> = {
  active: ['Active', 'ok'],
  trialing: ['Trial', 'ok'],
  past_due: ['Past due', 'warn'],
  unpaid: ['Unpaid', 'warn'],
  incomplete: ['Incomplete', 'warn'],
  incomplete_expired: ['Expired', 'muted'],
  canceled: ['Canceled', 'muted'],
  paused: ['Paused', 'muted'],
  paid: ['Paid', 'ok'],
  open: ['Open', 'warn'],
  draft: ['Draft', 'muted'],
  void: ['Void', 'muted'],
  uncollectible: ['Uncollectible', 'warn'],
};

const badge = (status: string) => {
  const [label, kind] = STATUS_LABEL[status] ?? [status, 'muted'];
  return html`<span class="badge ${kind}">${label}</span>`;
};

interface CardForm {
  cardNumber?: string;
  cardExpiry?: string;
  cardCvc?: string;
  billingName?: string;
}

const cardFields = (form: CardForm, errors: FieldError[] = []): Raw => {
  const fe = (f: FieldError['field']) => errors.find((e) => e.field === f)?.message;
  const first = errors[0]?.field;
  return html`${field({ id: 'cardNumber', label: 'Card number', autocomplete: 'cc-number', inputmode: 'numeric', placeholder: '1234 1234 1234 1234', error: fe('cardNumber'), autofocus: first === 'cardNumber' })}
<div class="row">
<div>${field({ id: 'cardExpiry', label: 'Expiration date', autocomplete: 'cc-exp', placeholder: 'MM / YY', value: form.cardExpiry, error: fe('cardExpiry'), autofocus: first === 'cardExpiry' })}</div>
<div>${field({ id: 'cardCvc', label: 'CVC', autocomplete: 'cc-csc', inputmode: 'numeric', placeholder: 'CVC', error: fe('cardCvc'), autofocus: first === 'cardCvc' })}</div>
</div>
${field({ id: 'billingName', label: 'Cardholder name', autocomplete: 'cc-name', value: form.billingName, error: fe('cardName'), autofocus: first === 'cardName' })}`;
};

const describeMethod = (pm: PaymentMethod | null) => {
  if (!pm) return 'No payment method on file';
  if (pm.card) {
    const brand =
      pm.card.brand === 'amex' ? 'American Express' : pm.card.brand[0]?.toUpperCase() + pm.card.brand.slice(1);
    return `${brand} •••• ${pm.card.last4}, expires ${String(pm.card.exp_month).padStart(2, '0')}/${pm.card.exp_year}`;
  }
  if (pm.us_bank_account) return `${pm.us_bank_account.bank_name} •••• ${pm.us_bank_account.last4}`;
  return pm.type;
};

/**
 * The customer portal (billing_portal.sessions → url): the customer's subscriptions, payment method and
 * invoices; cancel at period end, renew (undo), update the card, pay a past-due invoice, go back. And
 * the hosted invoice page and its PDF (hosted_invoice_url, invoice_pdf).
 */
export function accountPages(app: FastifyInstance, state: StripeState) {
  const notFound = (reply: FastifyReply, title = 'Something went wrong') =>
    reply
      .status(404)
      .type('text/html')
      .send(
        layout(
          title,
          html`<main class="page narrow"><div class="card"><h1>${title}</h1><p>The page you were looking for could not be found. The link may have expired; go back and open it again.</p></div></main>`,
        ),
      );

  const portalOf = (id: string): { portal: PortalSession; customer: Customer } | null => {
    const portal = state.portalSessions.get(id);
    if (!portal || nowSeconds() > portal.created + PORTAL_LIFETIME) return null;
    const customer = state.customers.get(portal.customer);
    if (!customer || state.deletedCustomers.has(customer.id)) return null;
    return { portal, customer };
  };

  const liveSubscriptions = (customer: Customer) =>
    state.newestFirst(
      [...state.subscriptions.values()].filter(
        (s) => s.customer === customer.id && s.status !== 'canceled' && s.status !== 'incomplete_expired',
      ),
    );

  const customerMethod = (customer: Customer, subs: Subscription[]) => {
    const first = subs[0];
    if (first) return defaultPaymentMethod(state, first);
    const id = customer.invoice_settings.default_payment_method;
    return id ? (state.paymentMethods.get(id) ?? null) : null;
  };

  const portalPage = (portal: PortalSession, customer: Customer, notice?: string, error?: string) => {
    const subs = liveSubscriptions(customer);
    const pm = customerMethod(customer, subs);
    const invoices = state
      .newestFirst([...state.invoices.values()].filter((i) => i.customer === customer.id && i.status !== 'draft'))
      .slice(0, 24);
    const base = `/stripe/portal/${portal.id}`;
    return layout(
      `${state.businessName} – Billing`,
      html`<main class="page narrow">
${portal.return_url ? html`<a class="back" href="${portal.return_url}">← Return to ${state.businessName}</a>` : ''}
<p class="business"><span>${state.businessName}</span><span class="badge">Test mode</span></p>
${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}
${error ? html`<div class="alert" role="alert">${error}</div>` : ''}
<section class="card" aria-labelledby="subscription-heading">
<h2 id="subscription-heading">Current subscription</h2>
${subs.length === 0 ? html`<p>No active subscription.</p>` : ''}
${subs.map((sub) => {
  const item = sub.items.data[0];
  const price = item?.price;
  const product = price ? state.products.get(price.product) : undefined;
  const open = sub.latest_invoice ? state.invoices.get(sub.latest_invoice) : undefined;
  return html`<div class="subscription">
<p><strong>${product?.name ?? 'Subscription'}</strong> ${badge(sub.status)}</p>
<p class="amount">${price ? formatMoney(price.unit_amount * (item?.quantity ?? 1), price.currency) : ''} <small>per ${price?.recurring ? formatInterval(price.recurring.interval, price.recurring.interval_count) : ''}</small></p>
<p>${sub.cancel_at_period_end ? `Your plan will be canceled on ${formatDate(sub.current_period_end)}.` : sub.status === 'past_due' ? 'Your last payment failed. Update your payment method or pay the open invoice to keep your plan.' : `Your plan renews on ${formatDate(sub.current_period_end)}.`}</p>
<div class="actions">
${
  sub.cancel_at_period_end
    ? html`<form method="post" action="${base}/subscriptions/${sub.id}/renew"><button type="submit" class="inline">Renew subscription</button></form>`
    : html`<form method="post" action="${base}/subscriptions/${sub.id}/cancel"><button type="submit" class="inline danger">Cancel subscription</button></form>`
}
${
  open && open.status === 'open'
    ? html`<form method="post" action="${base}/invoices/${open.id}/pay"><button type="submit" class="inline">Pay ${formatMoney(open.amount_remaining, open.currency)} now</button></form>`
    : ''
}
</div>
</div>`;
})}
</section>
<section class="card" aria-labelledby="payment-heading">
<h2 id="payment-heading">Payment method</h2>
<p>${describeMethod(pm)}</p>
<p><a href="${base}/payment-method">Update payment method</a></p>
</section>
<section class="card" aria-labelledby="billing-heading">
<h2 id="billing-heading">Billing information</h2>
<p>${customer.name ?? ''}<br>${customer.email ?? ''}</p>
</section>
<section class="card" aria-labelledby="invoices-heading">
<h2 id="invoices-heading">Invoice history</h2>
${
  invoices.length === 0
    ? html`<p>No invoices yet.</p>`
    : html`<table><thead><tr><th>Date</th><th>Number</th><th class="num">Amount</th><th>Status</th></tr></thead><tbody>
${invoices.map(
  (inv) =>
    html`<tr><td>${formatDate(inv.created)}</td><td><a href="/stripe/invoices/${inv.id}">${inv.number ?? inv.id}</a></td><td class="num">${formatMoney(inv.total, inv.currency)}</td><td>${badge(inv.status)}</td></tr>`,
)}
</tbody></table>`
}
</section>
</main>`,
    );
  };

  app.get<{ Params: { id: string }; Querystring: { notice?: string } }>('/stripe/portal/:id', async (req, reply) => {
    const found = portalOf(req.params.id);
    if (!found) return notFound(reply, 'This link has expired');
    const notices: Record<string, string> = {
      canceled: 'Your subscription has been canceled. It stays active until the end of the period.',
      renewed: 'Your subscription has been renewed.',
      card: 'Your payment method has been updated.',
      paid: 'Thanks, your payment was received.',
    };
    return reply.type('text/html').send(portalPage(found.portal, found.customer, notices[req.query.notice ?? '']));
  });

  const subscriptionAction = (action: 'cancel' | 'renew') =>
    app.post<{ Params: { id: string; sub: string } }>(
      `/stripe/portal/:id/subscriptions/:sub/${action}`,
      async (req, reply) => {
        const found = portalOf(req.params.id);
        if (!found) return notFound(reply, 'This link has expired');
        const sub = state.subscriptions.get(req.params.sub);
        if (!sub || sub.customer !== found.customer.id) return notFound(reply);
        if (sub.status !== 'canceled' && sub.cancel_at_period_end !== (action === 'cancel')) {
          cancelAtPeriodEnd(state, sub, action === 'cancel', {}, AUTOMATIC);
        }
        return reply.redirect(
          `/stripe/portal/${found.portal.id}?notice=${action === 'cancel' ? 'canceled' : 'renewed'}`,
          303,
        );
      },
    );
  subscriptionAction('cancel');
  subscriptionAction('renew');

  app.post<{ Params: { id: string; invoice: string } }>(
    '/stripe/portal/:id/invoices/:invoice/pay',
    async (req, reply) => {
      const found = portalOf(req.params.id);
      if (!found) return notFound(reply, 'This link has expired');
      const invoice = state.invoices.get(req.params.invoice);
      if (!invoice || invoice.customer !== found.customer.id) return notFound(reply);
      if (invoice.status !== 'open') return reply.redirect(`/stripe/portal/${found.portal.id}`, 303);
      const sub = invoice.subscription ? state.subscriptions.get(invoice.subscription) : undefined;
      const pm = sub ? defaultPaymentMethod(state, sub) : null;
      const result = payOpenInvoice(state, invoice, pm, offSessionOutcome(state, pm), AUTOMATIC);
      if (result.outcome === 'failed') {
        return reply
          .status(402)
          .type('text/html')
          .send(portalPage(found.portal, found.customer, undefined, result.error.message));
      }
      return reply.redirect(`/stripe/portal/${found.portal.id}?notice=paid`, 303);
    },
  );

  const paymentMethodPage = (portal: PortalSession, form: CardForm, errors?: FieldError[], error?: string) =>
    layout(
      `${state.businessName} – Update payment method`,
      html`<main class="page narrow">
<a class="back" href="/stripe/portal/${portal.id}">← Back</a>
<div class="card">
<h1>Update payment method</h1>
${error ? html`<div class="alert" role="alert">${error}</div>` : ''}
<form method="post" action="/stripe/portal/${portal.id}/payment-method" novalidate>
${cardFields(form, errors)}
<button type="submit">Save card</button>
</form>
<p class="hint">Test mode: 4242 4242 4242 4242 always works; 4000 0000 0000 0341 is saved but later charges fail.</p>
</div>
</main>`,
    );

  app.get<{ Params: { id: string } }>('/stripe/portal/:id/payment-method', async (req, reply) => {
    const found = portalOf(req.params.id);
    if (!found) return notFound(reply, 'This link has expired');
    return reply.type('text/html').send(paymentMethodPage(found.portal, {}));
  });

  app.post<{ Params: { id: string }; Body: CardForm }>('/stripe/portal/:id/payment-method', async (req, reply) => {
    const found = portalOf(req.params.id);
    if (!found) return notFound(reply, 'This link has expired');
    const { portal, customer } = found;
    const form: CardForm = formFields(req.body, ['cardNumber', 'cardExpiry', 'cardCvc', 'billingName']);
    const parsed = parseCard({
      number: form.cardNumber,
      expiry: form.cardExpiry,
      cvc: form.cardCvc,
      name: form.billingName,
    });
    if ('errors' in parsed) {
      return reply
        .status(400)
        .type('text/html')
        .send(paymentMethodPage(portal, form, parsed.errors));
    }
    const outcome = cardOutcome(parsed.card.number);
    if (outcome.first === 'declines') {
      // Saving a card checks it with the bank (a SetupIntent); a declined card is not saved.
      return reply
        .status(402)
        .type('text/html')
        .send(paymentMethodPage(portal, form, undefined, outcome.decline?.message));
    }
    const pm = createCardPaymentMethod(state, parsed.card, { email: customer.email });
    attachPaymentMethod(state, pm, customer, AUTOMATIC);
    const beforeCustomer = structuredClone(customer.invoice_settings);
    customer.invoice_settings.default_payment_method = pm.id;
    state.emit('customer.updated', customer, AUTOMATIC, { invoice_settings: beforeCustomer });
    for (const sub of liveSubscriptions(customer)) {
      if (sub.default_payment_method !== pm.id) {
        const previous = sub.default_payment_method;
        sub.default_payment_method = pm.id;
        state.emit('customer.subscription.updated', sub, AUTOMATIC, { default_payment_method: previous });
      }
    }
    // Like Stripe's retry on a new payment method: past-due invoices are attempted with the new card.
    for (const sub of liveSubscriptions(customer)) {
      const open = sub.latest_invoice ? state.invoices.get(sub.latest_invoice) : undefined;
      if (open?.status === 'open' && sub.status === 'past_due') {
        payOpenInvoice(state, open, pm, offSessionOutcome(state, pm), AUTOMATIC);
      }
    }
    const redirect = portal.flow?.after_completion.redirect?.return_url;
    return reply.redirect(redirect ?? `/stripe/portal/${portal.id}?notice=card`, 303);
  });

  // ---- Hosted invoice page and PDF -------------------------------------------------------------------
  const invoicePage = (
    invoice: Invoice,
    opts: { form?: CardForm; errors?: FieldError[]; error?: string; notice?: string } = {},
  ) =>
    layout(
      `Invoice ${invoice.number ?? invoice.id}`,
      html`<main class="page narrow">
<p class="business"><span>${state.businessName}</span><span class="badge">Test mode</span></p>
${opts.notice ? html`<div class="notice" role="status">${opts.notice}</div>` : ''}
<div class="card">
<h1>Invoice ${invoice.number ?? ''} ${badge(invoice.status)}</h1>
<p class="amount">${formatMoney(invoice.status === 'paid' ? invoice.amount_paid : invoice.amount_remaining, invoice.currency)} <small>${invoice.status === 'paid' ? `paid on ${formatDate(invoice.status_transitions.paid_at ?? invoice.created)}` : 'due'}</small></p>
<table><tbody>
<tr><th>Invoice number</th><td>${invoice.number ?? '—'}</td></tr>
<tr><th>Date of issue</th><td>${formatDate(invoice.effective_at ?? invoice.created)}</td></tr>
<tr><th>Billed to</th><td>${invoice.customer_name ?? ''} ${invoice.customer_email ?? ''}</td></tr>
</tbody></table>
</div>
<div class="card">
<h2>Items</h2>
<table><thead><tr><th>Description</th><th class="num">Qty</th><th class="num">Amount</th></tr></thead><tbody>
${invoice.lines.data.map(
  (l) =>
    html`<tr><td>${l.description}<br><span class="hint">${formatDate(l.period.start)} – ${formatDate(l.period.end)}</span></td><td class="num">${l.quantity}</td><td class="num">${formatMoney(l.amount, l.currency)}</td></tr>`,
)}
<tr><th>Total</th><td></td><th class="num">${formatMoney(invoice.total, invoice.currency)}</th></tr>
${invoice.starting_balance !== 0 || (invoice.ending_balance ?? 0) !== 0 ? html`<tr><td>Applied balance</td><td></td><td class="num">${formatMoney(invoice.amount_due - invoice.total, invoice.currency)}</td></tr>` : ''}
<tr><th>Amount due</th><td></td><th class="num">${formatMoney(invoice.amount_due, invoice.currency)}</th></tr>
</tbody></table>
<p><a href="/stripe/invoices/${invoice.id}/pdf">Download invoice</a></p>
</div>
${
  invoice.status === 'open'
    ? html`<div class="card">
<h2>Pay this invoice</h2>
${opts.error ? html`<div class="alert" role="alert">${opts.error}</div>` : ''}
<form method="post" action="/stripe/invoices/${invoice.id}/pay" novalidate>
${cardFields(opts.form ?? {}, opts.errors)}
<button type="submit">Pay ${formatMoney(invoice.amount_remaining, invoice.currency)}</button>
</form>
</div>`
    : ''
}
</main>`,
    );

  app.get<{ Params: { id: string }; Querystring: { notice?: string } }>('/stripe/invoices/:id', async (req, reply) => {
    const invoice = state.invoices.get(req.params.id);
    if (!invoice || invoice.status === 'draft') return notFound(reply, 'Invoice not found');
    const notice = req.query.notice === 'paid' ? 'Thanks, your payment was received.' : undefined;
    return reply.type('text/html').send(invoicePage(invoice, { notice }));
  });

  app.post<{ Params: { id: string }; Body: CardForm }>('/stripe/invoices/:id/pay', async (req, reply) => {
    const invoice = state.invoices.get(req.params.id);
    if (!invoice || invoice.status === 'draft') return notFound(reply, 'Invoice not found');
    if (invoice.status !== 'open') return reply.redirect(`/stripe/invoices/${invoice.id}`, 303);
    const form: CardForm = formFields(req.body, ['cardNumber', 'cardExpiry', 'cardCvc', 'billingName']);
    const parsed = parseCard({
      number: form.cardNumber,
      expiry: form.cardExpiry,
      cvc: form.cardCvc,
      name: form.billingName,
    });
    if ('errors' in parsed) {
      return reply
        .status(400)
        .type('text/html')
        .send(invoicePage(invoice, { form, errors: parsed.errors }));
    }
    const outcome = cardOutcome(parsed.card.number);
    if (outcome.first === 'declines') {
      return reply
        .status(402)
        .type('text/html')
        .send(invoicePage(invoice, { form, error: outcome.decline?.message }));
    }
    // The customer is present, so a card that asks for 3D Secure is taken as authenticated here.
    const customer = state.customers.get(invoice.customer) as Customer;
    const pm = createCardPaymentMethod(state, parsed.card, { email: customer.email });
    try {
      attachPaymentMethod(state, pm, customer, AUTOMATIC);
      payOpenInvoice(state, invoice, pm, 'succeeded', AUTOMATIC);
    } catch (error) {
      if (error instanceof StripeApiError) {
        return reply
          .status(error.status)
          .type('text/html')
          .send(invoicePage(invoice, { form, error: error.message }));
      }
      throw error;
    }
    return reply.redirect(`/stripe/invoices/${invoice.id}?notice=paid`, 303);
  });

  app.get<{ Params: { id: string } }>('/stripe/invoices/:id/pdf', async (req, reply) => {
    const invoice = state.invoices.get(req.params.id);
    if (!invoice || invoice.status === 'draft') return notFound(reply, 'Invoice not found');
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="Invoice-${invoice.number ?? invoice.id}.pdf"`)
      .send(invoicePdf(state.businessName, invoice));
  });
}
