/**
 * The BigCommerce catalog: products with their variants and images read (brand names read once), created and
 * updated through the V3 catalog, a variant found by its SKU before a create is tried again.
 */

import { DomainError } from '../../lib/errors.ts';
import type { Page, ProductInput, ProviderProduct } from '../types.ts';
import type { BcClient } from './client.ts';
import { positive, toDecimal, toMinor } from './money.ts';
import * as S from './schemas.ts';

export interface BcCatalogHost {
  readonly client: BcClient;
  /** The store's brand names by id, read once (cleared when a product names a brand). */
  brands: Promise<Map<number, string>> | null;
  createOnce<T>(create: () => Promise<T>, find: () => Promise<T | null>, refusal: string): Promise<T>;
  refused(err: unknown, message: string): Error;
}

const PRODUCT_PAGE = 250;

function mapProduct(p: S.Product, brands: Map<number, string>): ProviderProduct {
  return {
    externalId: String(p.id),
    title: p.name,
    brand: p.brand_id ? (brands.get(p.brand_id) ?? null) : null,
    productType: null,
    status: p.availability === 'disabled' ? 'archived' : p.is_visible ? 'active' : 'draft',
    images: (p.images ?? []).map((i) => i.url_zoom ?? i.url_standard ?? '').filter(Boolean),
    updatedAt: p.date_modified ? new Date(p.date_modified).toISOString() : null,
    variants: (p.variants ?? []).map((v) => {
      const sale = positive(toMinor(v.sale_price));
      const price =
        sale ??
        toMinor(v.price) ??
        toMinor(v.calculated_price) ??
        positive(toMinor(p.sale_price)) ??
        toMinor(p.price) ??
        0;
      const regular = toMinor(v.price) ?? toMinor(p.price);
      return {
        externalId: String(v.id),
        // BigCommerce keeps stock per variant (the base variant for a product without options).
        inventoryItemId: String(v.id),
        sku: v.sku || null,
        barcode: v.upc || v.gtin || null,
        title: (v.option_values ?? []).map((o) => o.label).join(' / ') || p.name,
        price,
        compareAtPrice:
          sale !== null && regular !== null && regular > sale ? regular : positive(toMinor(v.retail_price)),
      };
    }),
  };
}

function brandNames(host: BcCatalogHost): Promise<Map<number, string>> {
  host.brands ??= (async () => {
    const names = new Map<number, string>();
    for (let page = 1; ; page++) {
      const res = await host.client.call(S.list(S.Brand), 'GET', '/v3/catalog/brands', {
        query: { page, limit: 250 },
      });
      for (const b of res.data) names.set(b.id, b.name);
      if (!res.meta?.pagination || page >= res.meta.pagination.total_pages) break;
    }
    return names;
  })().catch((err) => {
    host.brands = null;
    throw err;
  });
  return host.brands;
}

export async function listProducts(host: BcCatalogHost, cursor: string | null): Promise<Page<ProviderProduct>> {
  const page = cursor ? Number(cursor) : 1;
  if (!Number.isInteger(page) || page < 1) throw new DomainError('VALIDATION', 'The product cursor is not a page');
  const [brands, res] = await Promise.all([
    brandNames(host),
    host.client.call(S.list(S.Product), 'GET', '/v3/catalog/products', {
      query: { include: 'variants,images', limit: PRODUCT_PAGE, page },
    }),
  ]);
  const pages = res.meta?.pagination?.total_pages ?? page;
  return { items: res.data.map((p) => mapProduct(p, brands)), nextCursor: page < pages ? String(page + 1) : null };
}

export async function createProduct(host: BcCatalogHost, input: ProductInput): Promise<ProviderProduct> {
  const first = input.variants[0];
  if (!first) throw new DomainError('VALIDATION', 'A product needs at least one variant');
  const body = {
    name: input.title,
    type: 'physical',
    weight: 0,
    price: toDecimal(first.price),
    description: input.description ?? '',
    ...(input.brand ? { brand_name: input.brand } : {}),
    inventory_tracking: 'variant',
    is_visible: true,
    variants: input.variants.map((v) => ({
      sku: v.sku,
      price: toDecimal(v.price),
      retail_price: v.compareAtPrice ? toDecimal(v.compareAtPrice) : 0,
      upc: v.barcode ?? '',
      option_values: [{ option_display_name: 'Option', label: v.title || v.sku }],
    })),
  };
  const productId = await host.createOnce(
    async () =>
      (await host.client.call(S.one(S.Product), 'POST', '/v3/catalog/products', { body, maxRetries: 0 })).data.id,
    async () => (await variantBySku(host, first.sku))?.product_id ?? null,
    'BigCommerce refused the product',
  );
  // A brand named for the first time was created with the product.
  if (input.brand) host.brands = null;
  return getProduct(host, productId);
}

async function variantBySku(host: BcCatalogHost, sku: string) {
  const res = await host.client.call(S.list(S.Variant), 'GET', '/v3/catalog/variants', { query: { sku } });
  return res.data.find((v) => v.sku === sku) ?? null;
}

export async function updateProduct(
  host: BcCatalogHost,
  externalId: string,
  input: Partial<ProductInput>,
): Promise<ProviderProduct> {
  const current = await host.client.call(S.one(S.Product), 'GET', `/v3/catalog/products/${Number(externalId)}`, {
    query: { include: 'variants' },
  });
  const bySku = new Map((current.data.variants ?? []).map((v) => [v.sku, v]));
  const updates: Record<string, unknown>[] = [];
  const additions: NonNullable<ProductInput['variants']> = [];
  for (const v of input.variants ?? []) {
    const existing = bySku.get(v.sku);
    if (!existing) {
      additions.push(v);
      continue;
    }
    updates.push({
      id: existing.id,
      price: toDecimal(v.price),
      ...(v.compareAtPrice !== undefined ? { retail_price: v.compareAtPrice ? toDecimal(v.compareAtPrice) : 0 } : {}),
      ...(v.barcode !== undefined ? { upc: v.barcode ?? '' } : {}),
    });
  }
  try {
    await host.client.send('PUT', `/v3/catalog/products/${current.data.id}`, {
      body: {
        ...(input.title !== undefined ? { name: input.title } : {}),
        ...(input.description !== undefined ? { description: input.description ?? '' } : {}),
        ...(input.brand ? { brand_name: input.brand } : {}),
        ...(updates.length > 0 ? { variants: updates } : {}),
      },
    });
    for (const v of additions) {
      await host.createOnce<unknown>(
        () =>
          host.client.send('POST', `/v3/catalog/products/${current.data.id}/variants`, {
            body: {
              sku: v.sku,
              price: toDecimal(v.price),
              retail_price: v.compareAtPrice ? toDecimal(v.compareAtPrice) : 0,
              upc: v.barcode ?? '',
              option_values: [{ option_display_name: 'Option', label: v.title || v.sku }],
            },
            maxRetries: 0,
          }),
        () => variantBySku(host, v.sku),
        'BigCommerce refused the new variant',
      );
    }
  } catch (err) {
    throw host.refused(err, 'BigCommerce refused the product change');
  }
  if (input.brand) host.brands = null;
  return getProduct(host, current.data.id);
}

async function getProduct(host: BcCatalogHost, id: number): Promise<ProviderProduct> {
  const res = await host.client.call(S.one(S.Product), 'GET', `/v3/catalog/products/${id}`, {
    query: { include: 'variants,images' },
  });
  return mapProduct(res.data, await brandNames(host));
}
