/**
 * The Shopify catalog: products and their variants read (listProducts, with variants past the first page),
 * created and updated, and the option values Shopify needs for each variant added.
 */

import { DomainError } from '../../lib/errors.ts';
import type { Page, ProductInput, ProviderProduct } from '../types.ts';
import { fromMinor, toMinor } from './client.ts';
import { batches, type Connection, describe, type ShopifyHost, type UserError } from './graphql.ts';

// Page sizes are chosen so each query's requested cost stays under Shopify's 1,000-point single-query cap.
const PRODUCTS_PAGE = 20;
const VARIANTS_PER_PRODUCT = 16;

const PRODUCT_FIELDS = `id title vendor productType status updatedAt
  images(first: 3) { nodes { url } }
  variants(first: ${VARIANTS_PER_PRODUCT}) { nodes { ${'id title sku barcode price compareAtPrice inventoryItem { id }'} } pageInfo { hasNextPage endCursor } }`;

const VARIANT_FIELDS = 'id title sku barcode price compareAtPrice inventoryItem { id }';

interface VariantNode {
  id: string;
  title: string;
  sku: string | null;
  barcode: string | null;
  price: string;
  compareAtPrice: string | null;
  inventoryItem: { id: string };
}

interface ProductNode {
  id: string;
  title: string;
  vendor: string;
  productType: string;
  status: 'ACTIVE' | 'DRAFT' | 'ARCHIVED';
  updatedAt: string;
  images: { nodes: { url: string }[] };
  variants: Connection<VariantNode>;
}

function mapVariant(v: VariantNode) {
  return {
    externalId: v.id,
    inventoryItemId: v.inventoryItem.id,
    sku: v.sku || null,
    barcode: v.barcode || null,
    title: v.title,
    price: toMinor(v.price),
    compareAtPrice: v.compareAtPrice == null ? null : toMinor(v.compareAtPrice),
  };
}

function mapProduct(p: ProductNode, variants: VariantNode[]): ProviderProduct {
  return {
    externalId: p.id,
    title: p.title,
    brand: p.vendor || null,
    productType: p.productType || null,
    status: p.status.toLowerCase() as ProviderProduct['status'],
    images: p.images.nodes.map((i) => i.url),
    variants: variants.map(mapVariant),
    updatedAt: p.updatedAt,
  };
}

export async function listProducts(host: ShopifyHost, cursor: string | null): Promise<Page<ProviderProduct>> {
  const data = await host.client.request<{ products: Connection<ProductNode> }>(
    `query($after: String) { products(first: ${PRODUCTS_PAGE}, after: $after, sortKey: ID) { nodes { ${PRODUCT_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
    { after: cursor },
    802,
  );
  const items: ProviderProduct[] = [];
  for (const p of data.products.nodes) items.push(mapProduct(p, await allVariants(host, p)));
  return {
    items,
    nextCursor: data.products.pageInfo.hasNextPage ? data.products.pageInfo.endCursor : null,
  };
}

/** A product's variants past the first page (products with many variants). */
async function allVariants(host: ShopifyHost, p: ProductNode): Promise<VariantNode[]> {
  const variants = [...p.variants.nodes];
  let after = p.variants.pageInfo.hasNextPage ? p.variants.pageInfo.endCursor : null;
  while (after) {
    const data: { product: { variants: Connection<VariantNode> } | null } = await host.client.request(
      `query($id: ID!, $after: String) { product(id: $id) { variants(first: 100, after: $after) { nodes { ${VARIANT_FIELDS} } pageInfo { hasNextPage endCursor } } } }`,
      { id: p.id, after },
      203,
    );
    if (!data.product) break;
    variants.push(...data.product.variants.nodes);
    after = data.product.variants.pageInfo.hasNextPage ? data.product.variants.pageInfo.endCursor : null;
  }
  return variants;
}

async function fetchProduct(host: ShopifyHost, id: string): Promise<ProviderProduct> {
  const data = await host.client.request<{ product: ProductNode | null }>(
    `query($id: ID!) { product(id: $id) { ${PRODUCT_FIELDS} } }`,
    { id },
    40,
  );
  if (!data.product) throw new DomainError('NOT_FOUND', 'The product is no longer in the Shopify shop');
  return mapProduct(data.product, await allVariants(host, data.product));
}

export async function createProduct(host: ShopifyHost, input: ProductInput): Promise<ProviderProduct> {
  if (input.variants.length === 0) throw new DomainError('VALIDATION', 'A product needs at least one variant');
  const titles = variantTitles(input.variants);
  const created = await host.client.request<{
    productCreate: { product: { id: string } | null; userErrors: UserError[] };
  }>(
    `mutation($product: ProductCreateInput!, $media: [CreateMediaInput!]) { productCreate(product: $product, media: $media) {
      product { id } userErrors { field message } } }`,
    {
      product: {
        title: input.title,
        vendor: input.brand ?? undefined,
        productType: input.productType ?? undefined,
        descriptionHtml: input.description ?? undefined,
        productOptions: [{ name: 'Title', values: titles.map((name) => ({ name })) }],
      },
      media: (input.images ?? []).map((url) => ({ originalSource: url, mediaContentType: 'IMAGE' })),
    },
  );
  const product = created.productCreate.product;
  if (!product)
    throw new DomainError('VALIDATION', `Shopify refused the product: ${describe(created.productCreate.userErrors)}`);
  await bulkCreateVariants(
    host,
    product.id,
    input.variants.map((v, i) => ({ ...v, optionValues: [{ optionName: 'Title', name: titles[i] as string }] })),
    true,
  );
  return fetchProduct(host, product.id);
}

async function bulkCreateVariants(
  host: ShopifyHost,
  productId: string,
  variants: (ProductInput['variants'][number] & { optionValues: OptionValue[] })[],
  replaceStandalone: boolean,
) {
  for (const [n, chunk] of batches(variants, 250).entries()) {
    const data = await host.client.request<{ productVariantsBulkCreate: { userErrors: UserError[] } }>(
      `mutation($id: ID!, $variants: [ProductVariantsBulkInput!]!, $strategy: ProductVariantsBulkCreateStrategy) {
        productVariantsBulkCreate(productId: $id, variants: $variants, strategy: $strategy) { userErrors { field message code } } }`,
      {
        id: productId,
        strategy: replaceStandalone && n === 0 ? 'REMOVE_STANDALONE_VARIANT' : 'DEFAULT',
        variants: chunk.map((v) => ({
          optionValues: v.optionValues,
          price: fromMinor(v.price),
          compareAtPrice: v.compareAtPrice == null ? null : fromMinor(v.compareAtPrice),
          barcode: v.barcode ?? null,
          inventoryItem: { sku: v.sku, tracked: true },
        })),
      },
    );
    const errors = data.productVariantsBulkCreate.userErrors;
    if (errors.length) throw new DomainError('VALIDATION', `Shopify refused the variants: ${describe(errors)}`);
  }
}

export async function updateProduct(
  host: ShopifyHost,
  externalId: string,
  input: Partial<ProductInput>,
): Promise<ProviderProduct> {
  const fields: Record<string, unknown> = { id: externalId };
  if (input.title !== undefined) fields.title = input.title;
  if (input.brand !== undefined) fields.vendor = input.brand ?? '';
  if (input.productType !== undefined) fields.productType = input.productType ?? '';
  if (input.description !== undefined) fields.descriptionHtml = input.description ?? '';
  const current = await fetchProduct(host, externalId);
  const knownImages = new Set(current.images);
  const newImages = (input.images ?? []).filter((url) => !knownImages.has(url));
  if (Object.keys(fields).length > 1 || newImages.length > 0) {
    const data = await host.client.request<{
      productUpdate: { product: { id: string } | null; userErrors: UserError[] };
    }>(
      `mutation($product: ProductUpdateInput!, $media: [CreateMediaInput!]) { productUpdate(product: $product, media: $media) {
        product { id } userErrors { field message } } }`,
      { product: fields, media: newImages.map((url) => ({ originalSource: url, mediaContentType: 'IMAGE' })) },
    );
    if (!data.productUpdate.product)
      throw new DomainError('VALIDATION', `Shopify refused the change: ${describe(data.productUpdate.userErrors)}`);
  }
  if (input.variants?.length) {
    const bySku = new Map(current.variants.filter((v) => v.sku).map((v) => [v.sku as string, v]));
    const updates = input.variants.filter((v) => bySku.has(v.sku));
    const additions = input.variants.filter((v) => !bySku.has(v.sku));
    for (const chunk of batches(updates, 250)) {
      const data = await host.client.request<{ productVariantsBulkUpdate: { userErrors: UserError[] } }>(
        `mutation($id: ID!, $variants: [ProductVariantsBulkInput!]!) { productVariantsBulkUpdate(productId: $id, variants: $variants) {
          userErrors { field message code } } }`,
        {
          id: externalId,
          variants: chunk.map((v) => ({
            id: bySku.get(v.sku)?.externalId,
            price: fromMinor(v.price),
            ...(v.compareAtPrice !== undefined
              ? { compareAtPrice: v.compareAtPrice === null ? null : fromMinor(v.compareAtPrice) }
              : {}),
            ...(v.barcode !== undefined ? { barcode: v.barcode } : {}),
          })),
        },
      );
      const errors = data.productVariantsBulkUpdate.userErrors;
      if (errors.length) throw new DomainError('VALIDATION', `Shopify refused the variants: ${describe(errors)}`);
    }
    if (additions.length) {
      // The product's own options (a product made in Shopify has Size, Color…, not our single "Title").
      const data = await host.client.request<{ product: { options: ProductOptionNode[] } | null }>(
        `query($id: ID!) { product(id: $id) { options { name values } } }`,
        { id: externalId },
        5,
      );
      const values = addedOptionValues(
        data.product?.options ?? [],
        current.variants.map((v) => v.title ?? ''),
        additions,
      );
      await bulkCreateVariants(
        host,
        externalId,
        additions.map((v, i) => ({ ...v, optionValues: values[i] as OptionValue[] })),
        false,
      );
    }
  }
  return fetchProduct(host, externalId);
}

interface ProductOptionNode {
  name: string;
  values: string[];
}
interface OptionValue {
  optionName: string;
  name: string;
}

/**
 * Option values for variants added to an existing product, one per option of the product: the variant's
 * title split on " / " when it names a value for each option ("M / Blue") in a combination the product does
 * not have yet; a combination it has gets a first value of its own ("M (SKU) / Blue"); a title that names no
 * such values becomes a new value of the first option (the title, else the SKU) with the first value of each
 * other option. Every variant so makes a new combination. `existing`: the titles of the product's variants.
 */
export function addedOptionValues(
  productOptions: ProductOptionNode[],
  existing: string[],
  variants: ProductInput['variants'],
): OptionValue[][] {
  const options = productOptions.length ? productOptions : [{ name: 'Title', values: [] }];
  const combos = new Set(existing);
  const firstValues = new Set(options[0]?.values ?? []);
  return variants.map((v) => {
    const parts = (v.title ?? '').split(' / ').map((part) => part.trim());
    const named = parts.length === options.length && parts.every(Boolean);
    let values: string[];
    if (named && !combos.has(parts.join(' / '))) values = parts;
    else {
      // A combination the product has already ("M / Blue" again): its first value made the SKU's own.
      const base = named ? (parts[0] as string) : v.title?.trim() || v.sku;
      let first = named ? `${base} (${v.sku})` : base;
      for (let n = 1; firstValues.has(first); n++) first = n === 1 ? `${base} (${v.sku})` : `${base} (${v.sku} ${n})`;
      values = [first, ...(named ? parts.slice(1) : options.slice(1).map((o) => o.values[0] ?? 'Default'))];
    }
    firstValues.add(values[0] as string);
    combos.add(values.join(' / '));
    return options.map((o, i) => ({ optionName: o.name, name: values[i] as string }));
  });
}

/** Unique option values for a product's single "Title" option: the variant's title, else its SKU. */
function variantTitles(variants: ProductInput['variants'], taken = new Set<string>()): string[] {
  const used = new Set(taken);
  return variants.map((v) => {
    let title = v.title?.trim() || v.sku;
    if (used.has(title)) title = `${title} (${v.sku})`;
    used.add(title);
    return title;
  });
}
