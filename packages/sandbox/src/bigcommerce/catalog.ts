import type { FastifyInstance } from 'fastify';
import { storeOf } from './api.ts';
import type { BigCommerceSim } from './sim.ts';
import type { BcOptionValue, BcProduct, BcStore, BcVariant } from './state.ts';
import { BcError, idList, iso, paginate, parseDateParam, stringList, toCents, toDecimal } from './support.ts';

type Query = Record<string, string | undefined>;

function onHand(store: BcStore, variantId: number): number {
  let sum = 0;
  for (const loc of store.locations) sum += store.stock.get(`${variantId}:${loc.id}`)?.onHand ?? 0;
  return sum;
}

export function renderVariant(store: BcStore, v: BcVariant) {
  const product = store.products.get(v.productId);
  const price = v.price ?? product?.price ?? 0;
  const sale = v.salePrice ?? product?.salePrice ?? null;
  return {
    id: v.id,
    product_id: v.productId,
    sku: v.sku,
    sku_id: v.skuId,
    price: v.price === null ? null : toDecimal(v.price),
    calculated_price: toDecimal(sale ?? price),
    sale_price: v.salePrice === null ? null : toDecimal(v.salePrice),
    retail_price: v.retailPrice === null ? null : toDecimal(v.retailPrice),
    map_price: null,
    weight: v.weightGrams / 1000,
    calculated_weight: v.weightGrams / 1000,
    width: null,
    height: null,
    depth: null,
    is_free_shipping: false,
    fixed_cost_shipping_price: null,
    purchasing_disabled: false,
    purchasing_disabled_message: '',
    image_url: '',
    cost_price: 0,
    upc: v.upc,
    mpn: v.mpn,
    gtin: v.gtin,
    inventory_level: onHand(store, v.id),
    inventory_warning_level: 0,
    bin_picking_number: '',
    option_values: v.optionValues,
  };
}

export function renderProduct(store: BcStore, p: BcProduct, include: string[]) {
  const variants = p.variantIds.map((id) => store.variants.get(id)).filter((v): v is BcVariant => !!v);
  return {
    id: p.id,
    name: p.name,
    type: p.type,
    sku: p.sku,
    description: p.description,
    weight: p.weightGrams / 1000,
    width: 0,
    depth: 0,
    height: 0,
    price: toDecimal(p.price),
    cost_price: 0,
    retail_price: p.retailPrice === null ? 0 : toDecimal(p.retailPrice),
    sale_price: p.salePrice === null ? 0 : toDecimal(p.salePrice),
    map_price: 0,
    calculated_price: toDecimal(p.salePrice ?? p.price),
    tax_class_id: 0,
    categories: p.categories,
    brand_id: p.brandId,
    inventory_level: variants.reduce((sum, v) => sum + onHand(store, v.id), 0),
    inventory_warning_level: 0,
    inventory_tracking: p.inventoryTracking,
    is_visible: p.isVisible,
    is_featured: false,
    availability: p.availability,
    upc: p.upc,
    mpn: '',
    gtin: '',
    condition: 'New',
    custom_url: { url: p.customUrl, is_customized: false },
    base_variant_id: p.baseVariantId,
    date_created: iso(p.createdAt),
    date_modified: iso(p.modifiedAt),
    ...(include.includes('variants') ? { variants: variants.map((v) => renderVariant(store, v)) } : {}),
    ...(include.includes('images') ? { images: [] } : {}),
  };
}

const invalid = (field: string, message = 'error.path.missing') =>
  new BcError(422, 'JSON data is missing or invalid', { [field]: message });

function money(body: Record<string, unknown>, field: string): number | null | undefined {
  if (!(field in body)) return undefined;
  const cents = toCents(body[field]);
  if (body[field] !== null && cents === null) throw invalid(field, 'error.expected.jsnumber');
  if (cents !== null && cents < 0) throw invalid(field, 'error.min');
  return cents;
}

function skuTaken(store: BcStore, sku: string, exceptVariant?: number): boolean {
  for (const v of store.variants.values()) if (v.sku === sku && v.id !== exceptVariant) return true;
  return false;
}

function brandId(store: BcStore, body: Record<string, unknown>): number | undefined {
  if (typeof body.brand_id === 'number') {
    if (body.brand_id !== 0 && !store.brands.some((b) => b.id === body.brand_id))
      throw invalid('brand_id', 'error.brand.missing');
    return body.brand_id;
  }
  if (typeof body.brand_name === 'string' && body.brand_name.trim()) {
    const name = body.brand_name.trim();
    let brand = store.brands.find((b) => b.name.toLowerCase() === name.toLowerCase());
    if (!brand) {
      brand = { id: Math.max(36, ...store.brands.map((b) => b.id)) + 1, name };
      store.brands.push(brand);
    }
    return brand.id;
  }
  return undefined;
}

/** The catalog V3 subset: products (with variants), variants, brands. */
export function catalogRoutes(api: FastifyInstance, sim: BigCommerceSim) {
  const productOf = (store: BcStore, id: string) => {
    const product = store.products.get(Number(id));
    if (!product) throw new BcError(404, 'The requested product was not found.');
    return product;
  };

  /** Option ids are per product and display name; values are reused by label. */
  const optionValues = (store: BcStore, product: BcProduct, input: unknown, field: string): BcOptionValue[] => {
    if (input === undefined) return [];
    if (!Array.isArray(input)) throw invalid(field, 'error.expected.jsarray');
    const known = product.variantIds.flatMap((id) => store.variants.get(id)?.optionValues ?? []);
    return input.map((raw, i) => {
      const ov = raw as { option_display_name?: unknown; label?: unknown };
      if (typeof ov.option_display_name !== 'string' || typeof ov.label !== 'string') {
        throw invalid(`${field}[${i}]`, 'error.option_value.invalid');
      }
      const sameOption = known.find((k) => k.option_display_name === ov.option_display_name);
      const same = known.find((k) => k.option_display_name === ov.option_display_name && k.label === ov.label);
      return {
        id: same?.id ?? ++store.seq.option,
        label: ov.label,
        option_id: sameOption?.option_id ?? ++store.seq.option,
        option_display_name: ov.option_display_name,
      };
    });
  };

  const addVariant = (store: BcStore, product: BcProduct, body: Record<string, unknown>, field: string) => {
    if (typeof body.sku !== 'string' || !body.sku) throw invalid(`${field}.sku`);
    if (skuTaken(store, body.sku)) throw new BcError(409, `Sku ${body.sku} is not unique.`, { sku: 'error.duplicate' });
    const id = ++store.seq.variant;
    const variant: BcVariant = {
      id,
      productId: product.id,
      skuId: id + 1000,
      sku: body.sku,
      price: money(body, 'price') ?? null,
      retailPrice: money(body, 'retail_price') ?? null,
      salePrice: money(body, 'sale_price') ?? null,
      upc: typeof body.upc === 'string' ? body.upc : '',
      gtin: typeof body.gtin === 'string' ? body.gtin : '',
      mpn: typeof body.mpn === 'string' ? body.mpn : '',
      weightGrams: typeof body.weight === 'number' ? Math.round(body.weight * 1000) : product.weightGrams,
      optionValues: optionValues(store, product, body.option_values, `${field}.option_values`),
    };
    store.variants.set(id, variant);
    product.variantIds.push(id);
    return variant;
  };

  const updateVariant = (store: BcStore, variant: BcVariant, body: Record<string, unknown>) => {
    if (typeof body.sku === 'string' && body.sku !== variant.sku) {
      if (skuTaken(store, body.sku, variant.id)) throw new BcError(409, `Sku ${body.sku} is not unique.`);
      variant.sku = body.sku;
    }
    const price = money(body, 'price');
    if (price !== undefined) variant.price = price;
    const retail = money(body, 'retail_price');
    if (retail !== undefined) variant.retailPrice = retail;
    const sale = money(body, 'sale_price');
    if (sale !== undefined) variant.salePrice = sale;
    if (typeof body.upc === 'string') variant.upc = body.upc;
    if (typeof body.gtin === 'string') variant.gtin = body.gtin;
    if (typeof body.mpn === 'string') variant.mpn = body.mpn;
  };

  api.get<{ Querystring: Query }>('/v3/catalog/products', async (req) => {
    const store = storeOf(req);
    const q = req.query;
    const include = stringList(q.include) ?? [];
    const ids = idList(q['id:in']);
    const skus = stringList(q['sku:in']);
    const modifiedMin = parseDateParam(q['date_modified:min']);
    const modifiedMax = parseDateParam(q['date_modified:max']);
    let products = [...store.products.values()].filter(
      (p) =>
        (!ids || ids.includes(p.id)) &&
        (q.sku === undefined || p.sku === q.sku) &&
        (!skus || skus.includes(p.sku)) &&
        (q.upc === undefined || p.upc === q.upc) &&
        (q.name === undefined || p.name === q.name) &&
        (q.is_visible === undefined || String(p.isVisible) === q.is_visible) &&
        (q.brand_id === undefined || String(p.brandId) === q.brand_id) &&
        (modifiedMin === null || p.modifiedAt >= modifiedMin) &&
        (modifiedMax === null || p.modifiedAt <= modifiedMax),
    );
    if (q.sort === 'date_modified') {
      const dir = q.direction === 'desc' ? -1 : 1;
      products = products.sort((a, b) => dir * (a.modifiedAt - b.modifiedAt) || a.id - b.id);
    }
    const page = paginate(products, q, { maxLimit: 250 });
    return { data: page.data.map((p) => renderProduct(store, p, include)), meta: page.meta };
  });

  api.get<{ Params: { id: string }; Querystring: Query }>('/v3/catalog/products/:id', async (req) => {
    const store = storeOf(req);
    return {
      data: renderProduct(store, productOf(store, req.params.id), stringList(req.query.include) ?? []),
      meta: {},
    };
  });

  api.post<{ Body: Record<string, unknown> }>('/v3/catalog/products', async (req) => {
    const store = storeOf(req);
    const body = req.body ?? {};
    if (typeof body.name !== 'string' || !body.name.trim()) throw invalid('name');
    if (body.type !== 'physical' && body.type !== 'digital')
      throw invalid('type', body.type === undefined ? 'error.path.missing' : 'error.type.invalid');
    if (typeof body.weight !== 'number') throw invalid('weight');
    const price = money(body, 'price');
    if (price === undefined || price === null) throw invalid('price');
    if ([...store.products.values()].some((p) => p.name === body.name)) {
      throw new BcError(409, `The product name is a duplicate`, { name: 'error.duplicate' });
    }
    const sku = typeof body.sku === 'string' ? body.sku : '';
    if (sku && skuTaken(store, sku)) throw new BcError(409, `Sku ${sku} is not unique.`, { sku: 'error.duplicate' });
    const variantsIn = body.variants === undefined ? [] : body.variants;
    if (!Array.isArray(variantsIn)) throw invalid('variants', 'error.expected.jsarray');
    const seen = new Set<string>();
    for (const v of variantsIn as { sku?: unknown }[]) {
      if (typeof v.sku === 'string') {
        if (seen.has(v.sku) || skuTaken(store, v.sku))
          throw new BcError(409, `Sku ${v.sku} is not unique.`, { sku: 'error.duplicate' });
        seen.add(v.sku);
      }
    }
    const now = Date.now();
    const product: BcProduct = {
      id: ++store.seq.product,
      name: body.name.trim(),
      type: body.type,
      sku,
      description: typeof body.description === 'string' ? body.description : '',
      price,
      retailPrice: money(body, 'retail_price') ?? null,
      salePrice: money(body, 'sale_price') ?? null,
      weightGrams: Math.round(body.weight * 1000),
      brandId: brandId(store, body) ?? 0,
      categories: Array.isArray(body.categories) ? (body.categories as number[]) : [],
      inventoryTracking:
        body.inventory_tracking === 'product' || body.inventory_tracking === 'variant'
          ? body.inventory_tracking
          : 'none',
      isVisible: body.is_visible === undefined ? true : body.is_visible === true,
      availability: 'available',
      upc: typeof body.upc === 'string' ? body.upc : '',
      createdAt: now,
      modifiedAt: now,
      customUrl: `/${body.name
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')}/`,
      variantIds: [],
      baseVariantId: 0,
    };
    store.products.set(product.id, product);
    try {
      if (variantsIn.length === 0) {
        addVariant(store, product, { sku: sku || `SKU-${product.id}`, upc: product.upc }, 'variants[0]');
      } else {
        variantsIn.forEach((v, i) => {
          addVariant(store, product, v as Record<string, unknown>, `variants[${i}]`);
        });
      }
    } catch (err) {
      for (const id of product.variantIds) store.variants.delete(id);
      store.products.delete(product.id);
      throw err;
    }
    product.baseVariantId = product.variantIds[0] ?? 0;
    sim.emit(store, 'store/product/created', { type: 'product', id: product.id });
    for (const id of product.variantIds) {
      const v = store.variants.get(id) as BcVariant;
      sim.emit(store, 'store/sku/created', {
        type: 'sku',
        id: v.skuId,
        sku: { product_id: product.id, variant_id: v.id },
      });
    }
    return { data: renderProduct(store, product, ['variants']), meta: {} };
  });

  api.put<{ Params: { id: string }; Body: Record<string, unknown> }>('/v3/catalog/products/:id', async (req) => {
    const store = storeOf(req);
    const product = productOf(store, req.params.id);
    const body = req.body ?? {};
    if (typeof body.name === 'string') {
      const name = body.name.trim();
      if (!name) throw invalid('name', 'error.minLength');
      if ([...store.products.values()].some((p) => p.name === name && p.id !== product.id)) {
        throw new BcError(409, 'The product name is a duplicate', { name: 'error.duplicate' });
      }
      product.name = name;
    }
    const price = money(body, 'price');
    if (price !== undefined && price !== null) product.price = price;
    const retail = money(body, 'retail_price');
    if (retail !== undefined) product.retailPrice = retail || null;
    const sale = money(body, 'sale_price');
    if (sale !== undefined) product.salePrice = sale || null;
    if (typeof body.description === 'string') product.description = body.description;
    if (typeof body.is_visible === 'boolean') product.isVisible = body.is_visible;
    if (typeof body.upc === 'string') product.upc = body.upc;
    const brand = brandId(store, body);
    if (brand !== undefined) product.brandId = brand;
    if (Array.isArray(body.variants)) {
      for (const raw of body.variants as Record<string, unknown>[]) {
        const variant = store.variants.get(Number(raw.id));
        if (!variant || variant.productId !== product.id) throw invalid('variants.id', 'error.variant.missing');
        updateVariant(store, variant, raw);
      }
    }
    product.modifiedAt = Date.now();
    sim.emit(store, 'store/product/updated', { type: 'product', id: product.id });
    return { data: renderProduct(store, product, stringList((req.query as Query).include) ?? []), meta: {} };
  });

  api.get<{ Params: { id: string }; Querystring: Query }>('/v3/catalog/products/:id/variants', async (req) => {
    const store = storeOf(req);
    const product = productOf(store, req.params.id);
    const variants = product.variantIds.map((id) => store.variants.get(id) as BcVariant);
    const page = paginate(variants, req.query, { maxLimit: 250 });
    return { data: page.data.map((v) => renderVariant(store, v)), meta: page.meta };
  });

  api.post<{ Params: { id: string }; Body: Record<string, unknown> }>(
    '/v3/catalog/products/:id/variants',
    async (req) => {
      const store = storeOf(req);
      const product = productOf(store, req.params.id);
      const variant = addVariant(store, product, req.body ?? {}, 'variant');
      if (product.inventoryTracking === 'none') product.inventoryTracking = 'variant';
      product.modifiedAt = Date.now();
      sim.emit(store, 'store/sku/created', {
        type: 'sku',
        id: variant.skuId,
        sku: { product_id: product.id, variant_id: variant.id },
      });
      return { data: renderVariant(store, variant), meta: {} };
    },
  );

  api.put<{ Params: { id: string; variantId: string }; Body: Record<string, unknown> }>(
    '/v3/catalog/products/:id/variants/:variantId',
    async (req) => {
      const store = storeOf(req);
      const product = productOf(store, req.params.id);
      const variant = store.variants.get(Number(req.params.variantId));
      if (!variant || variant.productId !== product.id) throw new BcError(404, 'The requested variant was not found.');
      updateVariant(store, variant, req.body ?? {});
      product.modifiedAt = Date.now();
      sim.emit(store, 'store/sku/updated', {
        type: 'sku',
        id: variant.skuId,
        sku: { product_id: product.id, variant_id: variant.id },
      });
      return { data: renderVariant(store, variant), meta: {} };
    },
  );

  api.get<{ Querystring: Query }>('/v3/catalog/variants', async (req) => {
    const store = storeOf(req);
    const q = req.query;
    const ids = idList(q['id:in']);
    const productIds = idList(q['product_id:in']);
    const skus = stringList(q['sku:in']);
    const variants = [...store.variants.values()].filter(
      (v) =>
        (!ids || ids.includes(v.id)) &&
        (!productIds || productIds.includes(v.productId)) &&
        (q.sku === undefined || v.sku === q.sku) &&
        (!skus || skus.includes(v.sku)) &&
        (q.upc === undefined || v.upc === q.upc),
    );
    const page = paginate(variants, q, { maxLimit: 250 });
    return { data: page.data.map((v) => renderVariant(store, v)), meta: page.meta };
  });

  api.put<{ Body: unknown }>('/v3/catalog/variants', async (req) => {
    const store = storeOf(req);
    if (!Array.isArray(req.body)) throw invalid('', 'error.expected.jsarray');
    if (req.body.length > 50) {
      throw new BcError(413, 'The request payload is too large. The maximum items allowed in the array is 50.');
    }
    const updated = (req.body as Record<string, unknown>[]).map((raw, i) => {
      const variant = store.variants.get(Number(raw.id));
      if (!variant) throw invalid(`[${i}].id`, 'error.variant.missing');
      updateVariant(store, variant, raw);
      return variant;
    });
    return { data: updated.map((v) => renderVariant(store, v)), meta: {} };
  });

  api.get<{ Querystring: Query }>('/v3/catalog/brands', async (req) => {
    const store = storeOf(req);
    const brands = store.brands.filter((b) => req.query.name === undefined || b.name === req.query.name);
    const page = paginate(brands, req.query, { maxLimit: 250 });
    return {
      data: page.data.map((b) => ({ id: b.id, name: b.name, page_title: '', meta_keywords: [], image_url: '' })),
      meta: page.meta,
    };
  });
}
