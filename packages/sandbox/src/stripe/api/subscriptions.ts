// Subscriptions: retrieve, list, create, update (items with prorations, cancel at period end, payment method)
// and cancel; and a subscription's items.

import { invalidRequest, missingParam, noSuch } from '../errors.ts';
import { allowOnly, bool, child, int, list, metadata, oneOf, type Params, reqStr, str } from '../params.ts';
import { nowSeconds } from '../state.ts';
import {
  cancelAtPeriodEnd,
  changeItems,
  createSubscriptionDirect,
  endSubscription,
  type ProrationBehavior,
} from '../subscriptions.ts';
import type { Price } from '../types.ts';
import { diff, LIST_PARAMS, pageOpts, subExpand, type V1Api } from './shared.ts';

export function subscriptionRoutes({ state, route, customer, price, subscription }: V1Api) {
  route('GET', '/v1/subscriptions/:id', ({ path, expand }) => state.render(subscription(path.id as string), expand));
  route('GET', '/v1/subscriptions', ({ params, expand }) => {
    allowOnly(params, [
      ...LIST_PARAMS,
      'customer',
      'price',
      'status',
      'collection_method',
      'current_period_end',
      'current_period_start',
      'test_clock',
      'automatic_tax',
    ]);
    const customerId = str(params, 'customer');
    const priceId = str(params, 'price');
    const status = oneOf(params, 'status', [
      'active',
      'all',
      'canceled',
      'ended',
      'incomplete',
      'incomplete_expired',
      'past_due',
      'paused',
      'trialing',
      'unpaid',
    ] as const);
    const items = [...state.subscriptions.values()].filter((s) => {
      if (customerId && s.customer !== customerId) return false;
      if (priceId && !s.items.data.some((i) => i.price.id === priceId)) return false;
      // Without a status filter Stripe lists the subscriptions that are not canceled.
      if (!status) return s.status !== 'canceled';
      if (status === 'all') return true;
      if (status === 'ended') return s.status === 'canceled' || s.status === 'incomplete_expired';
      return s.status === status;
    });
    return state.page('/v1/subscriptions', items, pageOpts(params), (s) => state.render(s, subExpand(expand)));
  });
  route('POST', '/v1/subscriptions', ({ params, expand, request }) => {
    allowOnly(params, [
      'customer',
      'items',
      'default_payment_method',
      'metadata',
      'payment_behavior',
      'collection_method',
      'description',
      'proration_behavior',
      'payment_settings',
    ]);
    const c = customer(reqStr(params, 'customer'));
    const collection = str(params, 'collection_method');
    if (collection && collection !== 'charge_automatically') {
      throw invalidRequest(
        'The sandbox bills subscriptions with collection_method=charge_automatically only.',
        'collection_method',
      );
    }
    const rawItems = list(params, 'items');
    if (!rawItems?.length) throw missingParam('items');
    const items = rawItems.map((raw, i) => {
      const item = (raw ?? {}) as Params;
      const p = price(reqStr(item, 'price', `items[${i}][price]`), `items[${i}][price]`);
      if (!p.recurring) {
        throw invalidRequest(
          'The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.',
          `items[${i}][price]`,
        );
      }
      if (!p.active) throw invalidRequest('The price specified is inactive.', `items[${i}][price]`);
      const quantity = int(item, 'quantity', `items[${i}][quantity]`) ?? 1;
      if (quantity < 1) throw invalidRequest('Quantity must be at least 1.', `items[${i}][quantity]`);
      return { price: p, quantity };
    });
    const first = items[0]?.price as Price;
    for (const [i, item] of items.entries()) {
      if (item.price.currency !== first.currency)
        throw invalidRequest('All prices must use the same currency.', `items[${i}][price]`);
      if (
        item.price.recurring?.interval !== first.recurring?.interval ||
        item.price.recurring?.interval_count !== first.recurring?.interval_count
      ) {
        throw invalidRequest(
          'All prices on a subscription must have the same `recurring.interval` and `recurring.interval_count`.',
          `items[${i}][price]`,
        );
      }
    }
    const pmId = str(params, 'default_payment_method') || c.invoice_settings.default_payment_method;
    const pm = pmId ? state.get(state.paymentMethods, 'PaymentMethod', pmId, 'default_payment_method') : null;
    if (pm && pm.customer !== c.id) {
      throw invalidRequest(
        `The customer does not have a payment method with the ID ${pm.id}. The payment method must be attached to the customer.`,
        'default_payment_method',
        'resource_missing',
      );
    }
    const sub = createSubscriptionDirect(
      state,
      {
        customer: c,
        items,
        metadata: metadata(params),
        pm,
        defaultPaymentMethod: str(params, 'default_payment_method') || null,
        description: str(params, 'description') || null,
        paymentBehavior:
          oneOf(params, 'payment_behavior', [
            'allow_incomplete',
            'error_if_incomplete',
            'default_incomplete',
            'pending_if_incomplete',
          ] as const) ?? 'allow_incomplete',
      },
      request,
    );
    return state.render(sub, expand);
  });
  route('POST', '/v1/subscriptions/:id', ({ path, params, expand, request }) => {
    allowOnly(params, [
      'items',
      'proration_behavior',
      'proration_date',
      'cancel_at_period_end',
      'cancellation_details',
      'metadata',
      'default_payment_method',
      'payment_behavior',
      'description',
    ]);
    const sub = subscription(path.id as string);
    const prorationBehavior =
      oneOf<ProrationBehavior>(params, 'proration_behavior', ['create_prorations', 'always_invoice', 'none']) ??
      'create_prorations';
    const items = list(params, 'items');
    const meta = params.metadata !== undefined ? metadata(params, sub.metadata) : undefined;
    const cancel = bool(params, 'cancel_at_period_end');
    const details = child(params, 'cancellation_details');
    const pmId = str(params, 'default_payment_method');
    const description = str(params, 'description');
    if (sub.status === 'canceled' && (items || cancel !== undefined || pmId)) {
      throw invalidRequest(
        'A canceled subscription can only update its cancellation_details and metadata.',
        undefined,
        'resource_missing',
      );
    }
    if (pmId !== undefined) {
      if (pmId) {
        const pm = state.paymentMethods.get(pmId);
        if (!pm) throw noSuch('PaymentMethod', pmId, 'default_payment_method');
        if (pm.customer !== sub.customer) {
          throw invalidRequest(
            `The customer does not have a payment method with the ID ${pmId}. The payment method must be attached to the customer.`,
            'default_payment_method',
            'resource_missing',
          );
        }
      }
    }
    // One update, one customer.subscription.updated (after any invoice it makes), as Stripe sends it; a
    // refused payment (payment_behavior=error_if_incomplete) leaves the subscription as it was.
    const before = structuredClone(sub) as unknown as Record<string, unknown>;
    try {
      if (pmId !== undefined) sub.default_payment_method = pmId || null;
      if (description !== undefined) sub.description = description || null;
      if (items) {
        changeItems(
          state,
          sub,
          items.map((raw, i) => {
            const item = (raw ?? {}) as Params;
            const priceId = str(item, 'price', `items[${i}][price]`);
            const quantity = int(item, 'quantity', `items[${i}][quantity]`);
            if (quantity !== undefined && quantity < 1)
              throw invalidRequest('Quantity must be at least 1.', `items[${i}][quantity]`);
            return {
              itemId: str(item, 'id', `items[${i}][id]`) ?? null,
              price: priceId ? price(priceId, `items[${i}][price]`) : null,
              quantity: quantity ?? null,
            };
          }),
          {
            prorationBehavior,
            prorationDate: int(params, 'proration_date'),
            paymentBehavior: oneOf(params, 'payment_behavior', [
              'allow_incomplete',
              'error_if_incomplete',
              'default_incomplete',
              'pending_if_incomplete',
            ] as const),
            metadata: meta,
            quiet: true,
          },
          request,
        );
      }
    } catch (error) {
      Object.assign(sub, structuredClone(before));
      throw error;
    }
    if (cancel !== undefined && cancel !== sub.cancel_at_period_end) {
      cancelAtPeriodEnd(
        state,
        sub,
        cancel,
        {
          comment: details ? str(details, 'comment') : undefined,
          feedback: details ? str(details, 'feedback') : undefined,
        },
        request,
        true,
      );
    }
    if (!items && meta) sub.metadata = meta;
    const prev = diff(before, sub);
    if (Object.keys(prev).length) state.emit('customer.subscription.updated', sub, request, prev);
    return state.render(sub, expand);
  });
  route('DELETE', '/v1/subscriptions/:id', ({ path, params, expand, request }) => {
    allowOnly(params, ['invoice_now', 'prorate', 'cancellation_details']);
    const sub = subscription(path.id as string);
    if (sub.status === 'canceled') {
      throw invalidRequest(
        `No such subscription: '${sub.id}'; it has already been canceled.`,
        undefined,
        'resource_missing',
      );
    }
    const details = child(params, 'cancellation_details');
    if (details) {
      sub.cancellation_details.comment = str(details, 'comment') ?? sub.cancellation_details.comment;
      sub.cancellation_details.feedback = str(details, 'feedback') ?? sub.cancellation_details.feedback;
    }
    sub.canceled_at = nowSeconds();
    sub.cancel_at = null;
    sub.cancel_at_period_end = false;
    endSubscription(state, sub, request);
    return state.render(sub, expand);
  });
  route('GET', '/v1/subscription_items', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'subscription']);
    const sub = subscription(reqStr(params, 'subscription'));
    return state.page(`/v1/subscription_items`, sub.items.data, pageOpts(params), (i) =>
      state.render(i, subExpand(expand)),
    );
  });
}
