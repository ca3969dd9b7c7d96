// Products and variants: the product and variant queries, productCreate, productUpdate and the variant bulk
// create and update mutations.

import { type ConnectionArgs, connection } from '../connection.ts';
import {
  isoNow,
  parseGid,
  parseMoney,
  type Shop,
  type ShopInventoryItem,
  type ShopLocation,
  type ShopProduct,
  type ShopVariant,
} from '../model.ts';
import { matches, parseSearch } from '../search.ts';
import { productView, variantView } from './catalog-views.ts';
import {
  type Args,
  cleanPath,
  findLocation,
  findProduct,
  inputArray,
  type RequestContext,
  requireScope,
  sortKeyOf,
} from './shared.ts';

export function productQueries(ctx: RequestContext) {
  const { shop } = ctx;
  return {
    product: (args: Args) => {
      requireScope(ctx, 'product', 'read_products');
      const p = findProduct(ctx, args.id);
      return p ? productView(ctx, p) : null;
    },
    products: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'products', 'read_products');
      const terms = parseSearch(args.query as string | undefined);
      const rows = [...shop.products.values()].filter((p) =>
        matches(terms, (f) => {
          switch (f) {
            case null:
            case 'title':
              return p.title;
            case 'updated_at':
              return p.updatedAt;
            case 'created_at':
              return p.createdAt;
            case 'status':
              return p.status.toLowerCase();
            case 'vendor':
              return p.vendor;
            case 'product_type':
              return p.productType;
            case 'handle':
              return p.handle;
            case 'id':
              return p.id;
            case 'tag':
              return p.tags;
            case 'sku':
              return p.variantIds.map((id) => shop.variants.get(id)?.sku ?? '');
            default:
              return undefined;
          }
        }),
      );
      const key = sortKeyOf(
        args.sortKey,
        {
          ID: (p: ShopProduct) => p.id,
          TITLE: (p: ShopProduct) => p.title,
          UPDATED_AT: (p: ShopProduct) => p.updatedAt,
          CREATED_AT: (p: ShopProduct) => p.createdAt,
          PRODUCT_TYPE: (p: ShopProduct) => p.productType,
          VENDOR: (p: ShopProduct) => p.vendor,
        },
        'ID',
      );
      return connection(
        rows,
        (p) => [key(p as never), p.id],
        args,
        (p) => productView(ctx, p),
      );
    },
    productVariant: (args: Args) => {
      requireScope(ctx, 'productVariant', 'read_products');
      const n = parseGid(args.id, 'ProductVariant');
      const v = n === null ? undefined : shop.variants.get(n);
      return v ? variantView(ctx, v) : null;
    },
    productVariants: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'productVariants', 'read_products');
      const terms = parseSearch(args.query as string | undefined);
      const rows = [...shop.variants.values()].filter((v) =>
        matches(terms, (f) => {
          switch (f) {
            case null:
            case 'title':
              return v.title;
            case 'sku':
              return v.sku;
            case 'barcode':
              return v.barcode;
            case 'updated_at':
              return v.updatedAt;
            case 'created_at':
              return v.createdAt;
            case 'product_id':
              return v.productId;
            case 'id':
              return v.id;
            case 'inventory_item_id':
              return v.inventoryItemId;
            default:
              return undefined;
          }
        }),
      );
      const key = sortKeyOf(
        args.sortKey,
        {
          ID: (v: ShopVariant) => v.id,
          SKU: (v: ShopVariant) => v.sku,
          TITLE: (v: ShopVariant) => v.title,
          POSITION: (v: ShopVariant) => v.position,
        },
        'ID',
      );
      return connection(
        rows,
        (v) => [key(v as never), v.id],
        args,
        (v) => variantView(ctx, v),
      );
    },
  };
}

const touchProduct = (p: ShopProduct) => {
  p.updatedAt = isoNow();
};

export function productMutations(ctx: RequestContext) {
  const { shop, store } = ctx;

  function stockEverywhere(variant: ShopVariant, at: string) {
    for (const loc of shop.locations) if (loc.isActive) store.level(shop, variant.inventoryItemId, loc.id, true, at);
  }

  function removeVariant(variant: ShopVariant) {
    const product = shop.products.get(variant.productId) as ShopProduct;
    product.variantIds = product.variantIds.filter((id) => id !== variant.id);
    shop.variants.delete(variant.id);
    shop.items.delete(variant.inventoryItemId);
    shop.levels.delete(variant.inventoryItemId);
  }

  return {
    productCreate: (args: Args) => {
      requireScope(ctx, 'productCreate', 'write_products');
      const input = (args.product ?? args.input) as
        | {
            title?: string;
            descriptionHtml?: string;
            vendor?: string;
            productType?: string;
            status?: ShopProduct['status'];
            tags?: string[];
            handle?: string;
            productOptions?: { name?: string; values?: { name?: string }[] }[];
          }
        | undefined;
      if (!input?.title?.trim())
        return { product: null, userErrors: [{ field: ['title'], message: "Title can't be blank" }] };
      const at = isoNow();
      const optionInputs = input.productOptions?.length
        ? input.productOptions
        : [{ name: 'Title', values: [{ name: 'Default Title' }] }];
      const handleBase = (input.handle ?? input.title)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
      let handle = handleBase;
      for (let n = 1; [...shop.products.values()].some((p) => p.handle === handle); n++) handle = `${handleBase}-${n}`;
      const product: ShopProduct = {
        id: shop.nextId(),
        title: input.title.trim(),
        handle,
        vendor: input.vendor ?? shop.name,
        productType: input.productType ?? '',
        descriptionHtml: input.descriptionHtml ?? '',
        status: input.status ?? 'ACTIVE',
        tags: input.tags ?? [],
        options: optionInputs.map((o) => ({
          id: shop.nextId(),
          name: o.name ?? 'Title',
          values: (o.values ?? []).map((v) => v.name ?? '').filter(Boolean),
        })),
        variantIds: [],
        images: mediaImages(shop, args.media),
        createdAt: at,
        updatedAt: at,
      };
      shop.products.set(product.id, product);
      // The standalone variant: the first value of every option, untracked price 0, as Shopify creates it.
      const standalone = store.addVariant(shop, product, {
        sku: '',
        barcode: null,
        price: 0,
        compareAtPrice: null,
        options: product.options.map((o) => o.values[0] ?? 'Default Title'),
        position: 1,
        at,
      });
      stockEverywhere(standalone, at);
      store.emit(shop, 'PRODUCTS_CREATE', store.productPayload(shop, product));
      return { product: productView(ctx, product), userErrors: [] };
    },

    productUpdate: (args: Args) => {
      requireScope(ctx, 'productUpdate', 'write_products');
      const input = (args.product ?? args.input) as
        | {
            id?: string;
            title?: string;
            descriptionHtml?: string;
            vendor?: string;
            productType?: string;
            status?: ShopProduct['status'];
            tags?: string[];
            handle?: string;
          }
        | undefined;
      const product = findProduct(ctx, input?.id);
      if (!input || !product)
        return { product: null, userErrors: [{ field: ['id'], message: 'Product does not exist' }] };
      if (input.title !== undefined && !input.title.trim())
        return { product: null, userErrors: [{ field: ['title'], message: "Title can't be blank" }] };
      if (input.title !== undefined) product.title = input.title.trim();
      if (input.descriptionHtml !== undefined) product.descriptionHtml = input.descriptionHtml;
      if (input.vendor !== undefined) product.vendor = input.vendor;
      if (input.productType !== undefined) product.productType = input.productType;
      if (input.status !== undefined) product.status = input.status;
      if (input.tags !== undefined) product.tags = input.tags;
      if (input.handle !== undefined) product.handle = input.handle;
      const images = mediaImages(shop, args.media);
      if (images.length) product.images.push(...images);
      touchProduct(product);
      store.emit(shop, 'PRODUCTS_UPDATE', store.productPayload(shop, product));
      return { product: productView(ctx, product), userErrors: [] };
    },

    productVariantsBulkCreate: (args: Args) => {
      requireScope(ctx, 'productVariantsBulkCreate', 'write_products');
      const product = findProduct(ctx, args.productId);
      const inputs = args.variants as VariantInput[];
      inputArray(inputs, 'variants');
      if (!product)
        return {
          product: null,
          productVariants: null,
          userErrors: [{ field: ['productId'], message: 'Product does not exist', code: 'PRODUCT_DOES_NOT_EXIST' }],
        };
      const errors: { field: string[]; message: string; code: string }[] = [];
      const standalone =
        product.variantIds.length === 1 ? (shop.variants.get(product.variantIds[0] as number) as ShopVariant) : null;
      const removeStandalone = args.strategy === 'REMOVE_STANDALONE_VARIANT' && standalone !== null;
      const existing = new Set(
        product.variantIds
          .map((id) => shop.variants.get(id) as ShopVariant)
          .filter((v) => !(removeStandalone && v === standalone))
          .map((v) => v.selectedOptions.map((o) => o.value).join('\u0000')),
      );
      const planned: { input: VariantInput; options: string[]; price: number; compareAt: number | null }[] = [];
      inputs.forEach((input, i) => {
        const options = product.options.map(
          (o) => input.optionValues?.find((v) => v.optionName === o.name)?.name ?? o.values[0] ?? 'Default Title',
        );
        const unknownOption = input.optionValues?.find((v) => !product.options.some((o) => o.name === v.optionName));
        if (unknownOption) {
          errors.push({
            field: cleanPath('variants', i, 'optionValues'),
            message: `Option ${unknownOption.optionName} does not exist`,
            code: 'OPTION_DOES_NOT_EXIST',
          });
          return;
        }
        const combo = options.join('\u0000');
        if (existing.has(combo)) {
          errors.push({
            field: cleanPath('variants', i),
            message: `The variant '${options.join(' / ')}' already exists.`,
            code: 'VARIANT_ALREADY_EXISTS',
          });
          return;
        }
        existing.add(combo);
        const price = input.price == null ? 0 : parseMoney(input.price);
        const compareAt = input.compareAtPrice == null ? null : parseMoney(input.compareAtPrice);
        if (price === null || (input.compareAtPrice != null && compareAt === null)) {
          errors.push({ field: cleanPath('variants', i, 'price'), message: 'Price is invalid', code: 'INVALID' });
          return;
        }
        for (const q of input.inventoryQuantities ?? [])
          if (!findLocation(ctx, q.locationId))
            errors.push({
              field: cleanPath('variants', i, 'inventoryQuantities'),
              message: 'The location could not be found.',
              code: 'INVALID_LOCATION',
            });
        planned.push({ input, options, price, compareAt });
      });
      if (errors.length > 0) return { product: productView(ctx, product), productVariants: null, userErrors: errors };
      const at = isoNow();
      if (removeStandalone && standalone) removeVariant(standalone);
      for (let i = 0; i < product.options.length; i++) {
        const option = product.options[i] as ShopProduct['options'][number];
        for (const p of planned) {
          const value = p.options[i] as string;
          if (!option.values.includes(value)) option.values.push(value);
        }
        if (removeStandalone) option.values = option.values.filter((v) => planned.some((p) => p.options[i] === v));
      }
      const created = planned.map((p) => {
        const variant = store.addVariant(shop, product, {
          sku: p.input.inventoryItem?.sku ?? '',
          barcode: p.input.barcode ?? null,
          price: p.price,
          compareAtPrice: p.compareAt,
          options: p.options,
          position: product.variantIds.length + 1,
          at,
          tracked: p.input.inventoryItem?.tracked ?? true,
        });
        stockEverywhere(variant, at);
        for (const q of p.input.inventoryQuantities ?? []) {
          const loc = findLocation(ctx, q.locationId) as ShopLocation;
          store.level(shop, variant.inventoryItemId, loc.id, true, at).available = q.availableQuantity;
        }
        return variant;
      });
      product.variantIds.forEach((id, i) => {
        (shop.variants.get(id) as ShopVariant).position = i + 1;
      });
      touchProduct(product);
      store.emit(shop, 'PRODUCTS_UPDATE', store.productPayload(shop, product));
      return {
        product: productView(ctx, product),
        productVariants: created.map((v) => variantView(ctx, v)),
        userErrors: [],
      };
    },

    productVariantsBulkUpdate: (args: Args) => {
      requireScope(ctx, 'productVariantsBulkUpdate', 'write_products');
      const product = findProduct(ctx, args.productId);
      const inputs = args.variants as VariantInput[];
      inputArray(inputs, 'variants');
      if (!product)
        return {
          product: null,
          productVariants: null,
          userErrors: [{ field: ['productId'], message: 'Product does not exist', code: 'PRODUCT_DOES_NOT_EXIST' }],
        };
      const errors: { field: string[]; message: string; code: string }[] = [];
      const updates: { variant: ShopVariant; input: VariantInput; price: number | null; compareAt: number | null }[] =
        [];
      inputs.forEach((input, i) => {
        const id = parseGid(input.id, 'ProductVariant');
        const variant = id === null ? undefined : shop.variants.get(id);
        if (!variant || variant.productId !== product.id) {
          errors.push({
            field: cleanPath('variants', i, 'id'),
            message: 'Product variant does not exist',
            code: 'PRODUCT_VARIANT_DOES_NOT_EXIST',
          });
          return;
        }
        const price = input.price == null ? null : parseMoney(input.price);
        const compareAt = input.compareAtPrice == null ? null : parseMoney(input.compareAtPrice);
        if ((input.price != null && price === null) || (input.compareAtPrice != null && compareAt === null)) {
          errors.push({ field: cleanPath('variants', i, 'price'), message: 'Price is invalid', code: 'INVALID' });
          return;
        }
        if (input.inventoryQuantities?.length) {
          errors.push({
            field: cleanPath('variants', i, 'inventoryQuantities'),
            message:
              'Inventory quantities can only be provided during create. To update inventory, use inventorySetQuantities.',
            code: 'NO_INVENTORY_QUANTITIES_ON_VARIANTS_UPDATE',
          });
          return;
        }
        updates.push({ variant, input, price, compareAt });
      });
      if (errors.length > 0 && !args.allowPartialUpdates)
        return { product: productView(ctx, product), productVariants: null, userErrors: errors };
      const at = isoNow();
      for (const { variant, input, price, compareAt } of updates) {
        if (price !== null) variant.price = price;
        if ('compareAtPrice' in input) variant.compareAtPrice = compareAt;
        if (input.barcode !== undefined) variant.barcode = input.barcode;
        if (input.inventoryItem?.sku !== undefined) variant.sku = input.inventoryItem.sku ?? '';
        if (input.inventoryItem?.tracked != null)
          (shop.items.get(variant.inventoryItemId) as ShopInventoryItem).tracked = input.inventoryItem.tracked;
        if (input.optionValues?.length) {
          for (const ov of input.optionValues) {
            const i = product.options.findIndex((o) => o.name === ov.optionName);
            const option = product.options[i];
            if (!option || !ov.name) continue;
            (variant.selectedOptions[i] as { value: string }).value = ov.name;
            if (!option.values.includes(ov.name)) option.values.push(ov.name);
          }
          variant.title = variant.selectedOptions.map((o) => o.value).join(' / ');
        }
        variant.updatedAt = at;
      }
      touchProduct(product);
      store.emit(shop, 'PRODUCTS_UPDATE', store.productPayload(shop, product));
      return {
        product: productView(ctx, product),
        productVariants: updates.map((u) => variantView(ctx, u.variant)),
        userErrors: errors,
      };
    },
  };
}

interface VariantInput {
  id?: string;
  barcode?: string | null;
  price?: string | null;
  compareAtPrice?: string | null;
  optionValues?: { optionName?: string; name?: string }[];
  inventoryItem?: { sku?: string | null; tracked?: boolean | null };
  inventoryQuantities?: { availableQuantity: number; locationId: string }[];
}

function mediaImages(shop: Shop, media: unknown) {
  return ((media as { originalSource: string; mediaContentType: string; alt?: string }[] | undefined) ?? [])
    .filter((m) => m.mediaContentType === 'IMAGE')
    .map((m) => ({ id: shop.nextId(), url: m.originalSource, altText: m.alt ?? null }));
}
