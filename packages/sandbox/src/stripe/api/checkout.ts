// Checkout Sessions (mode=subscription): create, retrieve, their line items, expire and list; a session past its
// expires_at is expired when read.

import { expireIfDue, expireSession } from '../checkout.ts';
import { invalidRequest, missingParam } from '../errors.ts';
import { allowOnly, bool, child, int, list, metadata, oneOf, type Params, str, strList } from '../params.ts';
import { nowSeconds } from '../state.ts';
import type { CheckoutLineItem, CheckoutSession } from '../types.ts';
import { EMAIL, LIST_PARAMS, pageOpts, subExpand, type V1Api } from './shared.ts';

export function checkoutRoutes({ state, route, customer, price }: V1Api) {
  const session = (id: string) => {
    const found = state.get(state.sessions, 'checkout.session', id);
    expireIfDue(state, found, { id: null, idempotencyKey: null });
    return found;
  };
  route('POST', '/v1/checkout/sessions', ({ params, expand }) => {
    allowOnly(params, [
      'mode',
      'line_items',
      'customer',
      'customer_email',
      'client_reference_id',
      'success_url',
      'cancel_url',
      'metadata',
      'subscription_data',
      'expires_at',
      'payment_method_types',
      'allow_promotion_codes',
      'locale',
      'billing_address_collection',
      'payment_method_collection',
      'customer_update',
      'ui_mode',
      'tax_id_collection',
    ]);
    const mode = oneOf(params, 'mode', ['payment', 'setup', 'subscription'] as const);
    if (!mode) throw missingParam('mode');
    if (mode !== 'subscription') {
      throw invalidRequest(`The sandbox's Checkout supports mode=subscription only (got ${mode}).`, 'mode');
    }
    const customerId = str(params, 'customer') || null;
    const customerEmail = str(params, 'customer_email') || null;
    if (customerId && customerEmail) {
      throw invalidRequest('You may only specify one of these parameters: customer, customer_email.', 'customer');
    }
    if (customerId) customer(customerId);
    if (customerEmail && !EMAIL.test(customerEmail)) {
      throw invalidRequest(`Invalid email address: ${customerEmail}`, 'customer_email', 'email_invalid');
    }
    const successUrl = str(params, 'success_url') || null;
    const cancelUrl = str(params, 'cancel_url') || null;
    for (const [param, value] of [
      ['success_url', successUrl],
      ['cancel_url', cancelUrl],
    ] as const) {
      if (value && !/^https?:\/\/./.test(value)) throw invalidRequest('Not a valid URL', param, 'url_invalid');
    }
    const rawItems = list(params, 'line_items');
    if (!rawItems || rawItems.length === 0) {
      throw invalidRequest('`line_items` is required in `subscription` mode.', 'line_items', 'parameter_missing');
    }
    const id = state.newId('cs', 58);
    const lineItems: CheckoutLineItem[] = rawItems.map((raw, i) => {
      const item = (raw ?? {}) as Params;
      const priceId = str(item, 'price', `line_items[${i}][price]`);
      if (!priceId) {
        throw invalidRequest(
          'You must specify either `price` or `price_data` for each line item.',
          `line_items[${i}][price]`,
          'parameter_missing',
        );
      }
      const p = price(priceId, `line_items[${i}][price]`);
      if (!p.active) {
        throw invalidRequest(
          `The price specified is inactive. This field only accepts active prices.`,
          `line_items[${i}][price]`,
        );
      }
      const quantity = int(item, 'quantity', `line_items[${i}][quantity]`) ?? 1;
      if (quantity < 1) throw invalidRequest('Quantity must be at least 1.', `line_items[${i}][quantity]`);
      return {
        id: state.newId('li'),
        object: 'item',
        amount_discount: 0,
        amount_subtotal: p.unit_amount * quantity,
        amount_tax: 0,
        amount_total: p.unit_amount * quantity,
        currency: p.currency,
        description: state.products.get(p.product)?.name ?? p.product,
        price: structuredClone(p),
        quantity,
      };
    });
    if (!lineItems.some((li) => li.price.recurring)) {
      throw invalidRequest(
        'You must provide at least one recurring price in `subscription` mode when using prices.',
        'line_items',
      );
    }
    const currencies = new Set(lineItems.map((li) => li.currency));
    if (currencies.size > 1) throw invalidRequest('All line items must use the same currency.', 'line_items');
    const intervals = new Set(
      lineItems.map((li) => `${li.price.recurring?.interval}:${li.price.recurring?.interval_count}`),
    );
    if (intervals.size > 1) {
      throw invalidRequest('Checkout does not support multiple prices with different billing intervals.', 'line_items');
    }
    const now = nowSeconds();
    const expiresAt = int(params, 'expires_at') ?? now + 24 * 3600;
    if (expiresAt < now + 30 * 60) {
      throw invalidRequest(
        'The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.',
        'expires_at',
      );
    }
    if (expiresAt > now + 24 * 3600) {
      throw invalidRequest(
        'The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.',
        'expires_at',
      );
    }
    const subscriptionData = child(params, 'subscription_data');
    if (subscriptionData) {
      state.sessionSubscriptionMetadata.set(id, metadata(subscriptionData));
    }
    const total = lineItems.reduce((s, li) => s + li.amount_total, 0);
    const c = customerId ? state.customers.get(customerId) : undefined;
    const created: CheckoutSession = {
      id,
      object: 'checkout.session',
      adaptive_pricing: null,
      after_expiration: null,
      allow_promotion_codes: bool(params, 'allow_promotion_codes') ?? null,
      amount_subtotal: total,
      amount_total: total,
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      billing_address_collection: null,
      cancel_url: cancelUrl,
      client_reference_id: str(params, 'client_reference_id') || null,
      client_secret: null,
      collected_information: null,
      consent: null,
      consent_collection: null,
      created: now,
      currency: lineItems[0]?.currency as string,
      currency_conversion: null,
      custom_fields: [],
      custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
      customer: customerId,
      customer_account: null,
      customer_creation: customerId ? null : 'always',
      customer_details: c
        ? { address: null, email: c.email, name: c.name, phone: null, tax_exempt: 'none', tax_ids: [] }
        : null,
      customer_email: customerEmail,
      discounts: [],
      expires_at: expiresAt,
      integration_identifier: null,
      invoice: null,
      invoice_creation: null,
      line_items: { object: 'list', data: lineItems, has_more: false, url: `/v1/checkout/sessions/${id}/line_items` },
      livemode: false,
      locale: str(params, 'locale') || null,
      metadata: metadata(params),
      mode: 'subscription',
      origin_context: null,
      payment_intent: null,
      payment_link: null,
      payment_method_collection:
        (str(params, 'payment_method_collection') as 'always' | 'if_required' | undefined) ?? 'always',
      payment_method_configuration_details: null,
      payment_method_options: {},
      payment_method_types: strList(params, 'payment_method_types') ?? ['card', 'us_bank_account'],
      payment_status: 'unpaid',
      permissions: null,
      phone_number_collection: { enabled: false },
      recovered_from: null,
      saved_payment_method_options: null,
      setup_intent: null,
      shipping_address_collection: null,
      shipping_cost: null,
      shipping_options: [],
      status: 'open',
      submit_type: null,
      subscription: null,
      // Stripe puts the session's id where the success URL has the {CHECKOUT_SESSION_ID} template.
      success_url: successUrl,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: 'hosted',
      url: `${state.ctx.url()}/stripe/checkout/${id}`,
      wallet_options: null,
    };
    state.sessions.set(id, created);
    return state.render(created, expand);
  });
  route('GET', '/v1/checkout/sessions/:id', ({ path, expand }) => state.render(session(path.id as string), expand));
  route('GET', '/v1/checkout/sessions/:id/line_items', ({ path, params, expand }) => {
    const s = session(path.id as string);
    return state.page(
      `/v1/checkout/sessions/${s.id}/line_items`,
      s.line_items.data.map((li) => ({ ...li, created: s.created })),
      pageOpts(params),
      (li) => {
        const { created: _created, ...rest } = li;
        return state.render(rest, subExpand(expand));
      },
    );
  });
  route('POST', '/v1/checkout/sessions/:id/expire', ({ path, expand, request }) => {
    const s = session(path.id as string);
    if (s.status !== 'open') {
      throw invalidRequest(
        `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status}".`,
        undefined,
        'checkout_session_not_open',
      );
    }
    expireSession(state, s, request);
    return state.render(s, expand);
  });
  route('GET', '/v1/checkout/sessions', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'customer', 'subscription', 'status', 'payment_intent', 'customer_details']);
    const customerId = str(params, 'customer');
    const subscription = str(params, 'subscription');
    const status = str(params, 'status');
    const items = [...state.sessions.values()].filter(
      (s) =>
        (!customerId || s.customer === customerId) &&
        (!subscription || s.subscription === subscription) &&
        (!status || s.status === status),
    );
    for (const s of items) expireIfDue(state, s, { id: null, idempotencyKey: null });
    return state.page('/v1/checkout/sessions', items, pageOpts(params), (s) => state.render(s, subExpand(expand)));
  });
}
