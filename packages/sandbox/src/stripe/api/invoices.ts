// Invoices: retrieve, list, preview (create_preview, with the proration of a change), their lines, pay; and the
// invoice payments.

import { invalidRequest, noSuch, StripeApiError } from '../errors.ts';
import { defaultPaymentMethod, offSessionOutcome } from '../invoices.ts';
import { allowOnly, bool, child, int, list, oneOf, type Params, str } from '../params.ts';
import { type ProrationBehavior, payOpenInvoice, previewInvoice } from '../subscriptions.ts';
import { LIST_PARAMS, pageOpts, subExpand, type V1Api } from './shared.ts';

export function invoiceRoutes({ state, route, customer, price, subscription }: V1Api) {
  const invoice = (id: string) => state.get(state.invoices, 'invoice', id);
  route('GET', '/v1/invoices/:id', ({ path, expand }) => state.render(invoice(path.id as string), expand));
  route('GET', '/v1/invoices', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'customer', 'subscription', 'status', 'collection_method', 'due_date']);
    const customerId = str(params, 'customer');
    const subscriptionId = str(params, 'subscription');
    const status = oneOf(params, 'status', ['draft', 'open', 'paid', 'uncollectible', 'void'] as const);
    const items = [...state.invoices.values()].filter(
      (i) =>
        (!customerId || i.customer === customerId) &&
        (!subscriptionId || i.subscription === subscriptionId) &&
        (!status || i.status === status),
    );
    return state.page('/v1/invoices', items, pageOpts(params), (i) => state.render(i, subExpand(expand)));
  });
  route('POST', '/v1/invoices/create_preview', ({ params, expand }) => {
    allowOnly(params, [
      'customer',
      'subscription',
      'subscription_details',
      'preview_mode',
      'automatic_tax',
      'currency',
    ]);
    const customerId = str(params, 'customer');
    const subscriptionId = str(params, 'subscription');
    if (!customerId && !subscriptionId) {
      throw invalidRequest(
        'You must specify a customer or a subscription to preview an invoice.',
        'customer',
        'parameter_missing',
      );
    }
    if (customerId) customer(customerId);
    const sub = subscriptionId
      ? subscription(subscriptionId)
      : [...state.subscriptions.values()].find(
          (s) => s.customer === customerId && s.status !== 'canceled' && s.status !== 'incomplete_expired',
        );
    if (!sub) {
      throw new StripeApiError(404, {
        type: 'invalid_request_error',
        code: 'invoice_upcoming_none',
        message: `No upcoming invoices for customer: ${customerId}`,
      });
    }
    if (customerId && sub.customer !== customerId) {
      throw invalidRequest(`The subscription ${sub.id} does not belong to customer ${customerId}.`, 'subscription');
    }
    const details = child(params, 'subscription_details') ?? {};
    const items = list(details, 'items');
    const changes = items?.map((raw, i) => {
      const item = (raw ?? {}) as Params;
      const at = (k: string) => `subscription_details[items][${i}][${k}]`;
      const priceId = str(item, 'price', at('price'));
      const quantity = int(item, 'quantity', at('quantity'));
      return {
        itemId: str(item, 'id', at('id')) ?? null,
        price: priceId ? price(priceId, at('price')) : null,
        quantity: quantity ?? null,
      };
    });
    const preview = previewInvoice(
      state,
      sub,
      changes ?? null,
      {
        prorationBehavior:
          oneOf<ProrationBehavior>(
            details,
            'proration_behavior',
            ['create_prorations', 'always_invoice', 'none'],
            'subscription_details[proration_behavior]',
          ) ?? 'create_prorations',
        prorationDate: int(details, 'proration_date', 'subscription_details[proration_date]'),
      },
      bool(details, 'cancel_at_period_end', 'subscription_details[cancel_at_period_end]'),
    );
    return state.render(preview, expand);
  });
  route('GET', '/v1/invoices/:id/lines', ({ path, params, expand }) => {
    const inv = invoice(path.id as string);
    const lines = inv.lines.data.map((l) => ({ ...l, created: inv.created }));
    return state.page(`/v1/invoices/${inv.id}/lines`, lines, pageOpts(params), (l) => {
      const { created: _created, ...rest } = l;
      return state.render(rest, subExpand(expand));
    });
  });
  route('POST', '/v1/invoices/:id/pay', ({ path, params, expand, request }) => {
    allowOnly(params, ['payment_method', 'off_session', 'paid_out_of_band', 'forgive', 'mandate', 'source']);
    const inv = invoice(path.id as string);
    const sub = inv.subscription ? state.subscriptions.get(inv.subscription) : undefined;
    const pmId = str(params, 'payment_method');
    const pm = pmId
      ? state.get(state.paymentMethods, 'PaymentMethod', pmId, 'payment_method')
      : sub
        ? defaultPaymentMethod(state, sub)
        : null;
    const result = payOpenInvoice(state, inv, pm, offSessionOutcome(state, pm), request);
    if (result.outcome === 'failed') {
      throw new StripeApiError(402, {
        type: 'card_error',
        code: result.error.code,
        ...(result.error.decline_code ? { decline_code: result.error.decline_code } : {}),
        message: result.error.message,
      });
    }
    return state.render(inv, expand);
  });

  route('GET', '/v1/invoice_payments', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'invoice', 'payment', 'status']);
    const invoiceId = str(params, 'invoice');
    const status = str(params, 'status');
    const payment = child(params, 'payment');
    const intent = payment ? str(payment, 'payment_intent', 'payment[payment_intent]') : undefined;
    const sources = invoiceId ? [invoice(invoiceId)] : [...state.invoices.values()];
    const items = sources
      .flatMap((i) => i.payments.data)
      .filter((p) => (!status || p.status === status) && (!intent || p.payment.payment_intent === intent));
    return state.page('/v1/invoice_payments', items, pageOpts(params), (p) => state.render(p, subExpand(expand)));
  });
  route('GET', '/v1/invoice_payments/:id', ({ path, expand }) => {
    for (const inv of state.invoices.values()) {
      const found = inv.payments.data.find((p) => p.id === path.id);
      if (found) return state.render(found, expand);
    }
    throw noSuch('invoice_payment', path.id as string);
  });
}
