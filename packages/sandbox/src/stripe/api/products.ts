// Products and prices: create (a product with its default price, a price with its product), retrieve, update
// and list; a lookup key moves to a new price only when asked to.

import { invalidRequest, missingParam } from '../errors.ts';
import { allowOnly, bool, child, int, list, metadata, oneOf, type Params, reqStr, str, strList } from '../params.ts';
import { nowSeconds } from '../state.ts';
import type { Interval, Price, Product } from '../types.ts';
import { diff, LIST_PARAMS, pageOpts, subExpand, type V1Api } from './shared.ts';

export function productRoutes({ state, route, price }: V1Api) {
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
}
