import type { FastifyInstance } from 'fastify';
import { expireIfDue, expireSession } from './checkout.ts';
import { attachPaymentMethod, createCustomer } from './customers.ts';
import { invalidRequest, missingParam, noSuch, StripeApiError } from './errors.ts';
import { apiRoute } from './http.ts';
import { defaultPaymentMethod, offSessionOutcome } from './invoices.ts';
import { allowOnly, bool, child, int, list, metadata, oneOf, type Params, reqStr, str, strList } from './params.ts';
import { nowSeconds, type StripeState } from './state.ts';
import {
  cancelAtPeriodEnd,
  changeItems,
  createSubscriptionDirect,
  endSubscription,
  type ProrationBehavior,
  payOpenInvoice,
  previewInvoice,
} from './subscriptions.ts';
import type {
  CheckoutLineItem,
  CheckoutSession,
  Interval,
  PortalSession,
  Price,
  Product,
  Subscription,
} from './types.ts';

const LIST_PARAMS = ['limit', 'starting_after', 'ending_before', 'created'] as const;

function pageOpts(params: Params) {
  return {
    limit: int(params, 'limit'),
    startingAfter: str(params, 'starting_after'),
    endingBefore: str(params, 'ending_before'),
    created: createdFilter(params),
  };
}

/** `created=<unix>` or `created[gt|gte|lt|lte]=<unix>`. */
function createdFilter(params: Params): ((created: number) => boolean) | undefined {
  const exact = typeof params.created === 'string' ? int(params, 'created') : undefined;
  if (exact !== undefined) return (c) => c === exact;
  const range = child(params, 'created');
  if (!range) return undefined;
  const bound = (k: string) => int(range, k, `created[${k}]`);
  const [gt, gte, lt, lte] = [bound('gt'), bound('gte'), bound('lt'), bound('lte')];
  return (c) =>
    (gt === undefined || c > gt) &&
    (gte === undefined || c >= gte) &&
    (lt === undefined || c < lt) &&
    (lte === undefined || c <= lte);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The `/v1` API: the subset of Stripe a subscription business uses. */
export function stripeApi(app: FastifyInstance, state: StripeState) {
  const route = (method: 'GET' | 'POST' | 'DELETE', url: string, handler: Parameters<typeof apiRoute>[4]) =>
    apiRoute(app, state, method, url, handler);
  const customer = (id: string, param = 'customer') => {
    if (state.deletedCustomers.has(id)) throw noSuch('customer', id, param);
    return state.get(state.customers, 'customer', id, param);
  };
  const price = (id: string, param = 'price') => state.get(state.prices, 'price', id, param);
  const session = (id: string) => {
    const found = state.get(state.sessions, 'checkout.session', id);
    expireIfDue(state, found, { id: null, idempotencyKey: null });
    return found;
  };

  // ---- Customers -------------------------------------------------------------------------------------
  route('POST', '/v1/customers', ({ params, expand, request }) => {
    allowOnly(params, ['email', 'name', 'description', 'phone', 'metadata', 'payment_method', 'invoice_settings']);
    const email = str(params, 'email');
    if (email && !EMAIL.test(email)) throw invalidRequest(`Invalid email address: ${email}`, 'email', 'email_invalid');
    // A payment method to attach, and which one is the default, are checked before anything is made.
    const pmId = str(params, 'payment_method');
    const pm = pmId ? state.get(state.paymentMethods, 'PaymentMethod', pmId, 'payment_method') : undefined;
    if (pm?.customer) {
      throw invalidRequest(
        'The payment method you provided has already been attached to a customer.',
        'payment_method',
        'payment_method_unexpected_state',
      );
    }
    const settings = child(params, 'invoice_settings');
    const defaultPm = settings
      ? str(settings, 'default_payment_method', 'invoice_settings[default_payment_method]')
      : undefined;
    if (defaultPm && defaultPm !== pmId) {
      throw invalidRequest(
        `The customer does not have a payment method with the ID ${defaultPm}. The payment method must be attached to the customer.`,
        'invoice_settings[default_payment_method]',
        'resource_missing',
      );
    }
    const created = createCustomer(
      state,
      {
        email: email ?? null,
        name: str(params, 'name') ?? null,
        description: str(params, 'description') ?? null,
        phone: str(params, 'phone') ?? null,
        metadata: metadata(params),
        defaultPaymentMethod: defaultPm || null,
      },
      request,
    );
    if (pm) attachPaymentMethod(state, pm, created, request);
    return state.render(created, expand);
  });
  route('GET', '/v1/customers/:id', ({ path, expand }) => {
    if (state.deletedCustomers.has(path.id as string)) return { id: path.id, object: 'customer', deleted: true };
    return state.render(customer(path.id as string, 'id'), expand);
  });
  route('POST', '/v1/customers/:id', ({ path, params, expand, request }) => {
    allowOnly(params, ['email', 'name', 'description', 'phone', 'metadata', 'invoice_settings', 'balance']);
    const c = customer(path.id as string, 'id');
    const before = structuredClone(c) as unknown as Record<string, unknown>;
    const email = str(params, 'email');
    if (email !== undefined) {
      if (email && !EMAIL.test(email))
        throw invalidRequest(`Invalid email address: ${email}`, 'email', 'email_invalid');
      c.email = email || null;
    }
    const name = str(params, 'name');
    if (name !== undefined) c.name = name || null;
    const description = str(params, 'description');
    if (description !== undefined) c.description = description || null;
    const phone = str(params, 'phone');
    if (phone !== undefined) c.phone = phone || null;
    const balance = int(params, 'balance');
    if (balance !== undefined) c.balance = balance;
    c.metadata = metadata(params, c.metadata);
    const settings = child(params, 'invoice_settings');
    if (settings) {
      const pmId = str(settings, 'default_payment_method', 'invoice_settings[default_payment_method]');
      if (pmId !== undefined) {
        if (pmId) {
          const pm = state.paymentMethods.get(pmId);
          if (!pm || pm.customer !== c.id) {
            throw invalidRequest(
              `The customer does not have a payment method with the ID ${pmId}. The payment method must be attached to the customer.`,
              'invoice_settings[default_payment_method]',
              'resource_missing',
            );
          }
        }
        c.invoice_settings.default_payment_method = pmId || null;
      }
      const footer = str(settings, 'footer', 'invoice_settings[footer]');
      if (footer !== undefined) c.invoice_settings.footer = footer || null;
    }
    const prev: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c)) if (JSON.stringify(before[k]) !== JSON.stringify(v)) prev[k] = before[k];
    if (Object.keys(prev).length) state.emit('customer.updated', c, request, prev);
    return state.render(c, expand);
  });
  route('DELETE', '/v1/customers/:id', ({ path, request }) => {
    const c = customer(path.id as string, 'id');
    for (const sub of state.subscriptions.values()) {
      if (sub.customer === c.id && sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
        endSubscription(state, sub, request);
      }
    }
    state.deletedCustomers.add(c.id);
    state.emit('customer.deleted', c, request);
    return { id: c.id, object: 'customer', deleted: true };
  });
  route('GET', '/v1/customers', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'email', 'test_clock']);
    const email = str(params, 'email');
    const items = [...state.customers.values()].filter(
      (c) => !state.deletedCustomers.has(c.id) && (email === undefined || c.email === email),
    );
    return state.page('/v1/customers', items, pageOpts(params), (c) => state.render(c, subExpand(expand)));
  });
  route('GET', '/v1/customers/:id/payment_methods', ({ path, params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'type', 'allow_redisplay']);
    const c = customer(path.id as string, 'id');
    const type = str(params, 'type');
    const items = [...state.paymentMethods.values()].filter(
      (pm) => pm.customer === c.id && (!type || pm.type === type),
    );
    return state.page(`/v1/customers/${c.id}/payment_methods`, items, pageOpts(params), (pm) =>
      state.render(pm, subExpand(expand)),
    );
  });

  // ---- Products and prices ---------------------------------------------------------------------------
  route('POST', '/v1/products', ({ params, expand, request }) => {
    allowOnly(params, [
      'id',
      'name',
      'description',
      'active',
      'metadata',
      'statement_descriptor',
      'unit_label',
      'url',
      'images',
      'marketing_features',
      'default_price_data',
      'tax_code',
      'shippable',
    ]);
    const product = createProduct(params, request);
    const dpd = child(params, 'default_price_data');
    if (dpd) {
      const p = createPrice({ ...dpd, product: product.id }, request, 'default_price_data');
      product.default_price = p.id;
    }
    return state.render(product, expand);
  });
  function createProduct(
    params: Params,
    request: { id: string | null; idempotencyKey: string | null },
    path = '',
  ): Product {
    const at = (k: string) => (path ? `${path}[${k}]` : k);
    const name = reqStr(params, 'name', at('name'));
    const id = str(params, 'id', at('id'));
    if (id && state.products.has(id)) {
      throw invalidRequest(`Product already exists.`, at('id'), 'resource_already_exists');
    }
    const now = nowSeconds();
    const product: Product = {
      id: id || state.newId('prod', 14),
      object: 'product',
      active: bool(params, 'active', at('active')) ?? true,
      created: now,
      default_price: null,
      description: str(params, 'description', at('description')) || null,
      images: strList(params, 'images') ?? [],
      livemode: false,
      marketing_features: (list(params, 'marketing_features') ?? []).map((f) => ({
        name: String((f as { name?: unknown }).name ?? ''),
      })),
      metadata: metadata(params),
      name,
      package_dimensions: null,
      shippable: null,
      statement_descriptor: str(params, 'statement_descriptor', at('statement_descriptor')) || null,
      tax_code: null,
      unit_label: str(params, 'unit_label', at('unit_label')) || null,
      updated: now,
      url: str(params, 'url', at('url')) || null,
    };
    state.products.set(product.id, product);
    state.emit('product.created', product, request);
    return product;
  }
  route('GET', '/v1/products/:id', ({ path, expand }) =>
    state.render(state.get(state.products, 'product', path.id as string), expand),
  );
  route('POST', '/v1/products/:id', ({ path, params, expand, request }) => {
    allowOnly(params, [
      'name',
      'description',
      'active',
      'metadata',
      'default_price',
      'statement_descriptor',
      'unit_label',
      'url',
      'images',
      'marketing_features',
    ]);
    const product = state.get(state.products, 'product', path.id as string);
    const before = structuredClone(product) as unknown as Record<string, unknown>;
    const name = str(params, 'name');
    if (name !== undefined) {
      if (!name) throw invalidRequest('You must provide a non-empty name.', 'name');
      product.name = name;
    }
    const description = str(params, 'description');
    if (description !== undefined) product.description = description || null;
    const active = bool(params, 'active');
    if (active !== undefined) product.active = active;
    const defaultPrice = str(params, 'default_price');
    if (defaultPrice !== undefined) {
      if (defaultPrice) {
        const p = price(defaultPrice, 'default_price');
        if (p.product !== product.id) {
          throw invalidRequest(`The price ${defaultPrice} does not belong to this product.`, 'default_price');
        }
      }
      product.default_price = defaultPrice || null;
    }
    product.metadata = metadata(params, product.metadata);
    product.updated = nowSeconds();
    state.emit('product.updated', product, request, diff(before, product));
    return state.render(product, expand);
  });
  route('GET', '/v1/products', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'active', 'ids', 'shippable', 'url']);
    const active = bool(params, 'active');
    const ids = strList(params, 'ids');
    const items = [...state.products.values()].filter(
      (p) => (active === undefined || p.active === active) && (!ids || ids.includes(p.id)),
    );
    return state.page('/v1/products', items, pageOpts(params), (p) => state.render(p, subExpand(expand)));
  });

  const PRICE_PARAMS = [
    'currency',
    'unit_amount',
    'unit_amount_decimal',
    'recurring',
    'product',
    'product_data',
    'lookup_key',
    'transfer_lookup_key',
    'nickname',
    'metadata',
    'active',
    'tax_behavior',
    'billing_scheme',
  ];
  function createPrice(
    params: Params,
    request: { id: string | null; idempotencyKey: string | null },
    path = '',
  ): Price {
    const at = (k: string) => (path ? `${path}[${k}]` : k);
    const currency = reqStr(params, 'currency', at('currency')).toLowerCase();
    if (!/^[a-z]{3}$/.test(currency)) throw invalidRequest(`Invalid currency: ${currency}.`, at('currency'));
    let unitAmount = int(params, 'unit_amount', at('unit_amount'));
    const decimal = str(params, 'unit_amount_decimal', at('unit_amount_decimal'));
    if (unitAmount === undefined && decimal !== undefined) unitAmount = Math.round(Number(decimal));
    if (unitAmount === undefined) throw missingParam(at('unit_amount'));
    if (unitAmount < 0) throw invalidRequest('This value must be greater than or equal to 0.', at('unit_amount'));
    let productId = str(params, 'product', at('product'));
    const productData = child(params, 'product_data', at('product_data'));
    if (productId && productData) {
      throw invalidRequest('You may only specify one of these parameters: product, product_data.', at('product'));
    }
    if (productData) productId = createProduct(productData, request, at('product_data')).id;
    if (!productId) throw missingParam(at('product'));
    state.get(state.products, 'product', productId, at('product'));
    const recurringParams = child(params, 'recurring', at('recurring'));
    let recurring: Price['recurring'] = null;
    if (recurringParams) {
      const interval = oneOf<Interval>(
        recurringParams,
        'interval',
        ['day', 'week', 'month', 'year'],
        at('recurring[interval]'),
      );
      if (!interval) throw missingParam(at('recurring[interval]'));
      const count = int(recurringParams, 'interval_count', at('recurring[interval_count]')) ?? 1;
      const maxCount = { day: 1095, week: 156, month: 36, year: 3 }[interval];
      if (count < 1 || count > maxCount) {
        throw invalidRequest(`The maximum billing interval is three years.`, at('recurring[interval_count]'));
      }
      recurring = {
        interval,
        interval_count: count,
        meter: null,
        trial_period_days: int(recurringParams, 'trial_period_days') ?? null,
        usage_type: 'licensed',
      };
    }
    const lookupKey = str(params, 'lookup_key', at('lookup_key')) || null;
    if (lookupKey) {
      const holder = [...state.prices.values()].find((p) => p.lookup_key === lookupKey);
      if (holder) {
        if (!bool(params, 'transfer_lookup_key', at('transfer_lookup_key'))) {
          throw invalidRequest(
            `A price (\`${holder.id}\`) already uses that lookup key.`,
            at('lookup_key'),
            'lookup_key_already_exists',
          );
        }
        holder.lookup_key = null;
      }
    }
    const created: Price = {
      id: state.newId('price'),
      object: 'price',
      active: bool(params, 'active', at('active')) ?? true,
      billing_scheme: 'per_unit',
      created: nowSeconds(),
      currency,
      custom_unit_amount: null,
      livemode: false,
      lookup_key: lookupKey,
      metadata: metadata(params),
      nickname: str(params, 'nickname', at('nickname')) || null,
      product: productId,
      recurring,
      tax_behavior:
        oneOf(params, 'tax_behavior', ['unspecified', 'inclusive', 'exclusive'] as const, at('tax_behavior')) ??
        'unspecified',
      tiers_mode: null,
      transform_quantity: null,
      type: recurring ? 'recurring' : 'one_time',
      unit_amount: unitAmount,
      unit_amount_decimal: String(unitAmount),
    };
    state.prices.set(created.id, created);
    state.emit('price.created', created, request);
    return created;
  }
  route('POST', '/v1/prices', ({ params, expand, request }) => {
    allowOnly(params, PRICE_PARAMS);
    return state.render(createPrice(params, request), expand);
  });
  route('GET', '/v1/prices/:id', ({ path, expand }) => state.render(price(path.id as string, 'id'), expand));
  route('POST', '/v1/prices/:id', ({ path, params, expand, request }) => {
    allowOnly(params, ['active', 'lookup_key', 'transfer_lookup_key', 'nickname', 'metadata', 'tax_behavior']);
    const p = price(path.id as string, 'id');
    const before = structuredClone(p) as unknown as Record<string, unknown>;
    const active = bool(params, 'active');
    if (active !== undefined) p.active = active;
    const nickname = str(params, 'nickname');
    if (nickname !== undefined) p.nickname = nickname || null;
    const lookupKey = str(params, 'lookup_key');
    if (lookupKey !== undefined) {
      const holder = lookupKey
        ? [...state.prices.values()].find((x) => x.lookup_key === lookupKey && x.id !== p.id)
        : undefined;
      if (holder) {
        if (!bool(params, 'transfer_lookup_key')) {
          throw invalidRequest(
            `A price (\`${holder.id}\`) already uses that lookup key.`,
            'lookup_key',
            'lookup_key_already_exists',
          );
        }
        holder.lookup_key = null;
      }
      p.lookup_key = lookupKey || null;
    }
    p.metadata = metadata(params, p.metadata);
    state.emit('price.updated', p, request, diff(before, p));
    return state.render(p, expand);
  });
  route('GET', '/v1/prices', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'active', 'currency', 'lookup_keys', 'product', 'type', 'recurring']);
    const active = bool(params, 'active');
    const currency = str(params, 'currency');
    const lookupKeys = strList(params, 'lookup_keys');
    if (lookupKeys && lookupKeys.length > 10) {
      throw invalidRequest('You may only specify up to 10 lookup keys.', 'lookup_keys');
    }
    const product = str(params, 'product');
    const type = str(params, 'type');
    const recurring = child(params, 'recurring');
    const interval = recurring ? str(recurring, 'interval', 'recurring[interval]') : undefined;
    const items = [...state.prices.values()].filter(
      (p) =>
        (active === undefined || p.active === active) &&
        (!currency || p.currency === currency.toLowerCase()) &&
        (!lookupKeys || (p.lookup_key !== null && lookupKeys.includes(p.lookup_key))) &&
        (!product || p.product === product) &&
        (!type || p.type === type) &&
        (!interval || p.recurring?.interval === interval),
    );
    return state.page('/v1/prices', items, pageOpts(params), (p) => state.render(p, subExpand(expand)));
  });

  // ---- Checkout Sessions -----------------------------------------------------------------------------
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

  // ---- Subscriptions ---------------------------------------------------------------------------------
  const subscription = (id: string) => state.get(state.subscriptions, 'subscription', id);
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

  // ---- Invoices ----------------------------------------------------------------------------------------
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
  route('GET', '/v1/subscription_items', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'subscription']);
    const sub = subscription(reqStr(params, 'subscription'));
    return state.page(`/v1/subscription_items`, sub.items.data, pageOpts(params), (i) =>
      state.render(i, subExpand(expand)),
    );
  });

  // ---- Payment methods, payment intents, charges -------------------------------------------------------
  route('GET', '/v1/payment_methods/:id', ({ path, expand }) =>
    state.render(state.get(state.paymentMethods, 'PaymentMethod', path.id as string), expand),
  );
  route('GET', '/v1/payment_methods', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'customer', 'type', 'allow_redisplay']);
    const customerId = str(params, 'customer');
    if (customerId) customer(customerId);
    const type = str(params, 'type');
    const items = [...state.paymentMethods.values()].filter(
      (pm) => (!customerId || pm.customer === customerId) && (!type || pm.type === type) && pm.customer !== null,
    );
    return state.page('/v1/payment_methods', items, pageOpts(params), (pm) => state.render(pm, subExpand(expand)));
  });
  route('POST', '/v1/payment_methods/:id/attach', ({ path, params, expand, request }) => {
    allowOnly(params, ['customer']);
    const pm = state.get(state.paymentMethods, 'PaymentMethod', path.id as string);
    const c = customer(reqStr(params, 'customer'));
    attachPaymentMethod(state, pm, c, request);
    return state.render(pm, expand);
  });
  route('POST', '/v1/payment_methods/:id/detach', ({ path, expand, request }) => {
    const pm = state.get(state.paymentMethods, 'PaymentMethod', path.id as string);
    if (!pm.customer) {
      throw invalidRequest(
        'The payment method you provided is not attached to a customer so detachment is impossible.',
        undefined,
        'payment_method_unexpected_state',
      );
    }
    const c = state.customers.get(pm.customer);
    if (c && c.invoice_settings.default_payment_method === pm.id) c.invoice_settings.default_payment_method = null;
    for (const s of state.subscriptions.values())
      if (s.default_payment_method === pm.id) s.default_payment_method = null;
    pm.customer = null;
    state.emit('payment_method.detached', pm, request, { customer: c?.id ?? null });
    return state.render(pm, expand);
  });
  route('GET', '/v1/payment_intents/:id', ({ path, expand }) =>
    state.render(state.get(state.paymentIntents, 'payment_intent', path.id as string), expand),
  );
  route('GET', '/v1/charges/:id', ({ path, expand }) =>
    state.render(state.get(state.charges, 'charge', path.id as string), expand),
  );

  // ---- Customer portal -------------------------------------------------------------------------------
  route('POST', '/v1/billing_portal/sessions', ({ params, expand }) => {
    allowOnly(params, ['customer', 'return_url', 'configuration', 'locale', 'flow_data', 'on_behalf_of']);
    const c = customer(reqStr(params, 'customer'));
    const returnUrl = str(params, 'return_url') || null;
    if (returnUrl && !/^https?:\/\/./.test(returnUrl))
      throw invalidRequest('Not a valid URL', 'return_url', 'url_invalid');
    const flowData = child(params, 'flow_data');
    let flow: PortalSession['flow'] = null;
    if (flowData) {
      const type = oneOf(
        flowData,
        'type',
        ['payment_method_update', 'subscription_cancel', 'subscription_update', 'subscription_update_confirm'] as const,
        'flow_data[type]',
      );
      if (!type) throw missingParam('flow_data[type]');
      if (type !== 'payment_method_update') {
        throw invalidRequest(
          `The sandbox portal supports flow_data[type]=payment_method_update only.`,
          'flow_data[type]',
        );
      }
      const after = child(flowData, 'after_completion', 'flow_data[after_completion]');
      const afterType = after
        ? oneOf(
            after,
            'type',
            ['portal_homepage', 'redirect', 'hosted_confirmation'] as const,
            'flow_data[after_completion][type]',
          )
        : undefined;
      const redirect = after ? child(after, 'redirect', 'flow_data[after_completion][redirect]') : undefined;
      const redirectUrl = redirect
        ? str(redirect, 'return_url', 'flow_data[after_completion][redirect][return_url]')
        : undefined;
      if (afterType === 'redirect' && !redirectUrl)
        throw missingParam('flow_data[after_completion][redirect][return_url]');
      flow = {
        type,
        after_completion: {
          type: afterType === 'redirect' ? 'redirect' : 'portal_homepage',
          hosted_confirmation: null,
          redirect: afterType === 'redirect' && redirectUrl ? { return_url: redirectUrl } : null,
        },
        payment_method_update: {},
        subscription_cancel: null,
        subscription_update: null,
        subscription_update_confirm: null,
      };
    }
    const id = state.newId('bps');
    const portal: PortalSession = {
      id,
      object: 'billing_portal.session',
      configuration: 'bpc_sandboxdefault',
      created: nowSeconds(),
      customer: c.id,
      customer_account: null,
      flow,
      livemode: false,
      locale: str(params, 'locale') || null,
      on_behalf_of: null,
      return_url: returnUrl,
      url: `${state.ctx.url()}/stripe/portal/${id}${flow ? '/payment-method' : ''}`,
    };
    state.portalSessions.set(id, portal);
    return state.render(portal, expand);
  });

  // ---- Events ------------------------------------------------------------------------------------------
  route('GET', '/v1/events/:id', ({ path }) =>
    state.render(state.withDeliveryState(state.get(state.events, 'event', path.id as string))),
  );
  route('GET', '/v1/events', ({ params }) => {
    allowOnly(params, [...LIST_PARAMS, 'type', 'types', 'delivery_success']);
    const type = str(params, 'type');
    const types = strList(params, 'types');
    const matches = (t: string) => {
      if (type) return type.endsWith('.*') ? t.startsWith(type.slice(0, -1)) : t === type;
      if (types) return types.includes(t);
      return true;
    };
    const items = state.eventList().filter((e) => matches(e.type));
    return state.page('/v1/events', items, pageOpts(params), (e) => state.render(state.withDeliveryState(e)));
  });

  // Anything else under /v1 is a URL Stripe does not know.
  app.all('/v1/*', async (req, reply) =>
    reply.status(404).send({
      error: {
        type: 'invalid_request_error',
        message: `Unrecognized request URL (${req.method}: ${req.url.split('?')[0]}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
      },
    }),
  );
}

/** `expand[]=data.customer` on a list expands `customer` in each item. */
function subExpand(expand: string[]): string[] {
  return expand.filter((p) => p.startsWith('data.')).map((p) => p.slice(5));
}

function diff(before: Record<string, unknown>, after: object): Record<string, unknown> {
  const prev: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after))
    if (JSON.stringify(before[k]) !== JSON.stringify(v)) prev[k] = before[k] ?? null;
  return prev;
}

export type { Subscription };
