import type { FastifyInstance, FastifyReply } from 'fastify';
import { bankOutcome, cardOutcome, DECLINES, type FieldError, parseBankAccount, parseCard } from './cards.ts';
import { completeCheckout, expireIfDue, settleCheckoutPayment } from './checkout.ts';
import { createBankPaymentMethod, createCardPaymentMethod } from './customers.ts';
import { field, formFields, html, layout, type Raw, raw } from './html.ts';
import { formatInterval, formatMoney } from './money.ts';
import { AUTOMATIC, type StripeState } from './state.ts';
import type { CheckoutSession } from './types.ts';

/** What the customer typed, echoed back into the form after an error (never the card number or CVC). */
interface CheckoutForm {
  method?: string;
  email?: string;
  cardNumber?: string;
  cardExpiry?: string;
  cardCvc?: string;
  billingName?: string;
  accountName?: string;
  routingNumber?: string;
  accountNumber?: string;
}

export interface AchScheduler {
  schedule(sessionId: string): void;
}

const AUTH_FAILED = DECLINES.authenticationFailed.message;

/**
 * The hosted Checkout page (`session.url`): what is being bought, a card form and an ACH Direct Debit
 * alternative, Stripe's test cards and messages, the 3D Secure test page, then a 303 to success_url.
 */
export function checkoutPages(app: FastifyInstance, state: StripeState, ach: AchScheduler) {
  /** Cards waiting on the 3D Secure page: session id → the payment method and who pays. */
  const awaitingAuth = new Map<string, { pmId: string; email: string | null; name: string }>();

  const find = (id: string) => {
    const session = state.sessions.get(id);
    if (session) expireIfDue(state, session, AUTOMATIC);
    return session;
  };

  const notFound = (reply: FastifyReply) =>
    reply
      .status(404)
      .type('text/html')
      .send(
        layout(
          'Page not found',
          html`<main class="page narrow"><div class="card"><h1>Something went wrong</h1><p>The page you were looking for could not be found. Please check the URL or contact the merchant.</p></div></main>`,
        ),
      );

  const finished = (reply: FastifyReply, session: CheckoutSession) => {
    if (session.status === 'complete') {
      return reply
        .type('text/html')
        .send(
          layout(
            'Payment complete',
            html`<main class="page narrow"><div class="card"><h1>Thanks for subscribing</h1><p>This checkout is complete. A receipt was sent to ${session.customer_details?.email ?? 'you'}.</p>${
              session.success_url ? html`<p><a href="${successUrl(session)}">Continue</a></p>` : ''
            }</div></main>`,
          ),
        );
    }
    return reply
      .status(410)
      .type('text/html')
      .send(
        layout(
          'Checkout session expired',
          html`<main class="page narrow"><div class="card"><h1>This checkout session has expired</h1><p>Go back to ${state.businessName} to start again.</p>${
            session.cancel_url ? html`<p><a href="${session.cancel_url}">← Back</a></p>` : ''
          }</div></main>`,
        ),
      );
  };

  app.get<{ Params: { id: string }; Querystring: { error?: string } }>('/stripe/checkout/:id', async (req, reply) => {
    const session = find(req.params.id);
    if (!session) return notFound(reply);
    if (session.status !== 'open') return finished(reply, session);
    const error = req.query.error === 'authentication_failed' ? AUTH_FAILED : undefined;
    return reply.type('text/html').send(checkoutPage(state, session, {}, { error }));
  });

  app.post<{ Params: { id: string }; Body: CheckoutForm }>('/stripe/checkout/:id/pay', async (req, reply) => {
    const session = find(req.params.id);
    if (!session) return notFound(reply);
    if (session.status !== 'open')
      return session.status === 'complete' ? redirectToSuccess(reply, session) : finished(reply, session);
    const form: CheckoutForm = formFields(req.body, [
      'method',
      'email',
      'cardNumber',
      'cardExpiry',
      'cardCvc',
      'billingName',
      'accountName',
      'routingNumber',
      'accountNumber',
    ]);
    const method = form.method === 'us_bank_account' ? 'us_bank_account' : 'card';
    const needsEmail = !session.customer && !session.customer_email;
    const email = needsEmail ? (form.email ?? '').trim() : null;
    const errors: FieldError[] = [];
    if (needsEmail && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email ?? '')) {
      errors.push({ field: 'email', message: email ? 'Your email address is invalid.' : 'Enter your email address.' });
    }
    const payerEmail = email ?? session.customer_email ?? session.customer_details?.email ?? null;

    if (method === 'us_bank_account') {
      const parsed = parseBankAccount(form);
      if ('errors' in parsed || errors.length) {
        const all = [...errors, ...('errors' in parsed ? parsed.errors : [])];
        return reply
          .status(400)
          .type('text/html')
          .send(checkoutPage(state, session, form, { fieldErrors: all, openAch: true }));
      }
      const pm = createBankPaymentMethod(state, parsed.bank, { email: payerEmail });
      const outcome = bankOutcome(parsed.bank.account);
      if (outcome.failure) state.bankFailures.set(pm.id, outcome.failure);
      completeCheckout(state, session, { pm, email: payerEmail, name: parsed.bank.name, processing: true }, AUTOMATIC);
      ach.schedule(session.id);
      return redirectToSuccess(reply, session);
    }

    const parsed = parseCard({
      number: form.cardNumber,
      expiry: form.cardExpiry,
      cvc: form.cardCvc,
      name: form.billingName,
    });
    if ('errors' in parsed || errors.length) {
      const all = [...errors, ...('errors' in parsed ? parsed.errors : [])];
      return reply
        .status(400)
        .type('text/html')
        .send(checkoutPage(state, session, form, { fieldErrors: all }));
    }
    const { card } = parsed;
    const outcome = cardOutcome(card.number);
    if (outcome.first === 'declines') {
      // Stripe Checkout shows the decline and keeps the session open; nothing is created.
      return reply
        .status(402)
        .type('text/html')
        .send(checkoutPage(state, session, form, { error: outcome.decline?.message ?? DECLINES.generic.message }));
    }
    const pm = createCardPaymentMethod(state, card, { email: payerEmail });
    if (outcome.first === 'requires_authentication' || outcome.first === 'requires_authentication_once') {
      awaitingAuth.set(session.id, { pmId: pm.id, email: payerEmail, name: card.name });
      return reply.redirect(`/stripe/checkout/${session.id}/authenticate`, 303);
    }
    completeCheckout(state, session, { pm, email: payerEmail, name: card.name, processing: false }, AUTOMATIC);
    return redirectToSuccess(reply, session);
  });

  app.get<{ Params: { id: string } }>('/stripe/checkout/:id/authenticate', async (req, reply) => {
    const session = find(req.params.id);
    if (!session) return notFound(reply);
    if (session.status !== 'open') return finished(reply, session);
    if (!awaitingAuth.has(session.id)) return reply.redirect(`/stripe/checkout/${session.id}`, 303);
    return reply.type('text/html').send(
      layout(
        '3D Secure 2 Test Page',
        html`<main class="page narrow"><div class="card">
<p class="business"><span>${state.businessName}</span><span class="badge">Test mode</span></p>
<h1>3D Secure 2 Test Page</h1>
<p>This test page simulates your bank asking you to confirm the payment of ${formatMoney(session.amount_total, session.currency)}.</p>
<form method="post" action="/stripe/checkout/${session.id}/authenticate">
<input type="hidden" name="outcome" value="complete">
<button type="submit">Complete authentication</button>
</form>
<form method="post" action="/stripe/checkout/${session.id}/authenticate">
<input type="hidden" name="outcome" value="fail">
<button type="submit" class="secondary">Fail authentication</button>
</form>
</div></main>`,
      ),
    );
  });

  app.post<{ Params: { id: string }; Body: { outcome?: string } }>(
    '/stripe/checkout/:id/authenticate',
    async (req, reply) => {
      const session = find(req.params.id);
      if (!session) return notFound(reply);
      if (session.status !== 'open')
        return session.status === 'complete' ? redirectToSuccess(reply, session) : finished(reply, session);
      const waiting = awaitingAuth.get(session.id);
      if (!waiting) return reply.redirect(`/stripe/checkout/${session.id}`, 303);
      awaitingAuth.delete(session.id);
      const pm = state.paymentMethods.get(waiting.pmId);
      if (req.body?.outcome !== 'complete' || !pm) {
        state.paymentMethods.delete(waiting.pmId);
        return reply.redirect(`/stripe/checkout/${session.id}?error=authentication_failed`, 303);
      }
      completeCheckout(state, session, { pm, email: waiting.email, name: waiting.name, processing: false }, AUTOMATIC);
      return redirectToSuccess(reply, session);
    },
  );

  function redirectToSuccess(reply: FastifyReply, session: CheckoutSession) {
    if (!session.success_url) return finished(reply, session);
    return reply.redirect(successUrl(session), 303);
  }
}

/** success_url with Stripe's `{CHECKOUT_SESSION_ID}` template filled in. */
export function successUrl(session: CheckoutSession): string {
  return (session.success_url ?? '').replaceAll('{CHECKOUT_SESSION_ID}', session.id);
}

/** Settles an ACH payment (timer or control API): the session's invoice is paid or fails. */
export function settleAch(state: StripeState, sessionId: string, forced?: 'succeeded' | 'failed') {
  const session = state.sessions.get(sessionId);
  if (!session) return;
  settleCheckoutPayment(state, session, forced, AUTOMATIC);
}

function checkoutPage(
  state: StripeState,
  session: CheckoutSession,
  form: CheckoutForm,
  opts: { error?: string; fieldErrors?: FieldError[]; openAch?: boolean },
): string {
  const items = session.line_items.data;
  const first = items[0];
  const recurring = first?.price.recurring;
  const per = recurring ? formatInterval(recurring.interval, recurring.interval_count) : '';
  const name = items.length === 1 ? (first?.description ?? '') : `${items.length} items`;
  const fe = (f: FieldError['field']) => opts.fieldErrors?.find((e) => e.field === f)?.message;
  const firstError = opts.fieldErrors?.[0]?.field;
  const needsEmail = !session.customer && !session.customer_email;
  const email = session.customer_email ?? session.customer_details?.email ?? null;
  const emailField = needsEmail
    ? field({
        id: 'email',
        label: 'Email',
        type: 'email',
        autocomplete: 'email',
        value: form.email,
        error: fe('email'),
        autofocus: firstError === 'email',
      })
    : raw('');
  const achOpen = opts.openAch || form.method === 'us_bank_account';
  const acceptsAch = session.payment_method_types.includes('us_bank_account');
  const body: Raw = html`<main class="page">
<section class="summary" aria-label="Order summary">
${session.cancel_url ? html`<a class="back" href="${session.cancel_url}">← Back</a>` : ''}
<p class="business"><span>${state.businessName}</span><span class="badge">Test mode</span></p>
<p class="plan">Subscribe to ${name}</p>
<p class="amount">${formatMoney(session.amount_total, session.currency)} <small>per ${per}</small></p>
<table>
<tbody>
${items.map(
  (li) =>
    html`<tr><td>${li.description}${li.quantity > 1 ? ` × ${li.quantity}` : ''}<br><span class="hint">Billed ${
      li.price.recurring
        ? `${li.price.recurring.interval_count === 1 ? `${li.price.recurring.interval}ly` : `every ${formatInterval(li.price.recurring.interval, li.price.recurring.interval_count)}`}`
        : 'once'
    }</span></td><td class="num">${formatMoney(li.amount_total, li.currency)}</td></tr>`,
)}
<tr><th>Total due today</th><th class="num">${formatMoney(session.amount_total, session.currency)}</th></tr>
</tbody>
</table>
</section>
<section class="pay" aria-label="Payment">
${opts.error ? html`<div class="alert" role="alert">${opts.error}</div>` : ''}
${!needsEmail && email ? html`<p class="hint">Paying as ${email}</p>` : ''}
<form method="post" action="/stripe/checkout/${session.id}/pay" novalidate>
${emailField}
<fieldset class="methods">
<legend>Payment method</legend>
<label class="choice"><input type="radio" id="method-card" name="method" value="card"${raw(achOpen ? '' : ' checked')}> Card</label>
${acceptsAch ? html`<label class="choice"><input type="radio" id="method-ach" name="method" value="us_bank_account"${raw(achOpen ? ' checked' : '')}> US bank account (ACH debit)</label>` : ''}
</fieldset>
<fieldset class="card-fields">
<legend>Card information</legend>
${field({ id: 'cardNumber', label: 'Card number', autocomplete: 'cc-number', inputmode: 'numeric', placeholder: '1234 1234 1234 1234', value: '', error: fe('cardNumber'), autofocus: firstError === 'cardNumber' })}
<div class="row">
<div>${field({ id: 'cardExpiry', label: 'Expiration date', autocomplete: 'cc-exp', placeholder: 'MM / YY', value: form.cardExpiry, error: fe('cardExpiry'), autofocus: firstError === 'cardExpiry' })}</div>
<div>${field({ id: 'cardCvc', label: 'CVC', autocomplete: 'cc-csc', inputmode: 'numeric', placeholder: 'CVC', value: '', error: fe('cardCvc'), autofocus: firstError === 'cardCvc' })}</div>
</div>
${field({ id: 'billingName', label: 'Cardholder name', autocomplete: 'cc-name', placeholder: 'Full name on card', value: form.billingName, error: fe('cardName'), autofocus: firstError === 'cardName' })}
<p class="hint">Test mode: pay with 4242 4242 4242 4242, any future date and any CVC.</p>
</fieldset>
${
  acceptsAch
    ? html`<fieldset class="bank-fields">
<legend>Bank account</legend>
${field({ id: 'accountName', label: 'Account holder name', autocomplete: 'name', value: form.accountName, error: fe('accountName'), autofocus: firstError === 'accountName' })}
${field({ id: 'routingNumber', label: 'Routing number', inputmode: 'numeric', placeholder: '110000000', value: form.routingNumber, error: fe('routingNumber'), autofocus: firstError === 'routingNumber' })}
${field({ id: 'accountNumber', label: 'Account number', inputmode: 'numeric', placeholder: '000123456789', value: form.accountNumber, error: fe('accountNumber'), autofocus: firstError === 'accountNumber' })}
<p class="hint">By subscribing you authorise ${state.businessName} to debit this account for this and future payments. Bank payments take a few days to settle. Test mode: routing number 110000000, account number 000123456789.</p>
</fieldset>`
    : ''
}
<button type="submit">Subscribe</button>
</form>
</section>
</main>`;
  return layout(`${state.businessName} – Checkout`, body);
}
