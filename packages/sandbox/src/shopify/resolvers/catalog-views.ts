// Views of the catalog and its stock: locations, inventory levels and items, variants and products. They
// refer to each other (an item's variant, a variant's product, a level's location), so they live together.
// Views are plain objects whose fields are values or functions of the field's arguments (graphql-js calls
// them), built from the shop's state at the moment they are read.

import { GraphQLError } from 'graphql';
import { type ConnectionArgs, connection } from '../connection.ts';
import {
  gid,
  money,
  onHand,
  parseGid,
  quantityOf,
  type Shop,
  type ShopInventoryItem,
  type ShopLevel,
  type ShopLocation,
  type ShopProduct,
  type ShopVariant,
} from '../model.ts';
import { matches, parseSearch } from '../search.ts';
import { type Args, type RequestContext, requireScope } from './shared.ts';

export function locationView(ctx: RequestContext, loc: ShopLocation) {
  return {
    __typename: 'Location',
    id: gid('Location', loc.id),
    name: loc.name,
    isActive: loc.isActive,
    fulfillsOnlineOrders: loc.fulfillsOnlineOrders,
    // Shopify answers null for a location that does not offer local pickup.
    localPickupSettingsV2: loc.pickup ? { pickupTime: 'TWO_HOURS', instructions: '' } : null,
    createdAt: loc.createdAt,
    updatedAt: loc.updatedAt,
    address: {
      ...loc.address,
      address2: null,
      provinceCode: loc.address.province,
      country: loc.address.countryCode === 'US' ? 'United States' : loc.address.countryCode,
      formatted: [loc.address.address1, `${loc.address.city} ${loc.address.province} ${loc.address.zip}`],
    },
    inventoryLevel: (args: Args) => {
      requireScope(ctx, 'inventoryLevel', 'read_inventory');
      const itemId = parseGid(args.inventoryItemId, 'InventoryItem');
      const level = itemId === null ? undefined : ctx.store.level(ctx.shop, itemId, loc.id);
      return level && itemId !== null ? levelView(ctx, itemId, loc.id, level) : null;
    },
    inventoryLevels: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'inventoryLevels', 'read_inventory');
      const rows: { itemId: number; level: ShopLevel }[] = [];
      for (const [itemId, byLocation] of ctx.shop.levels) {
        const level = byLocation.get(loc.id);
        if (level) rows.push({ itemId, level });
      }
      const terms = parseSearch(args.query as string | undefined);
      const filtered = rows.filter((r) =>
        matches(terms, (f) =>
          f === 'updated_at' ? r.level.updatedAt : f === 'inventory_item_id' ? r.itemId : undefined,
        ),
      );
      return connection(
        filtered,
        (r) => [r.itemId],
        args,
        (r) => levelView(ctx, r.itemId, loc.id, r.level),
      );
    },
  };
}

export function levelView(ctx: RequestContext, itemId: number, locationId: number, level: ShopLevel) {
  return {
    __typename: 'InventoryLevel',
    id: `gid://shopify/InventoryLevel/${locationId}?inventory_item_id=${itemId}`,
    createdAt: level.createdAt,
    updatedAt: level.updatedAt,
    canDeactivate: onHand(level) === 0 && level.committed === 0,
    item: () => itemView(ctx, ctx.shop.items.get(itemId) as ShopInventoryItem),
    location: () => locationView(ctx, ctx.shop.locations.find((l) => l.id === locationId) as ShopLocation),
    quantities: (args: Args) => {
      const names = (args.names as string[]) ?? [];
      return names.map((name) => {
        const quantity = quantityOf(level, name);
        if (quantity === null)
          throw new GraphQLError(`Invalid quantity name: ${name}`, { extensions: { code: 'BAD_REQUEST' } });
        return {
          id: `gid://shopify/InventoryQuantity/${locationId}?inventory_item_id=${itemId}&name=${name}`,
          name,
          quantity,
          updatedAt: level.updatedAt,
        };
      });
    },
  };
}

export function itemView(ctx: RequestContext, item: ShopInventoryItem) {
  const variant = ctx.shop.variants.get(item.variantId) as ShopVariant;
  return {
    __typename: 'InventoryItem',
    id: gid('InventoryItem', item.id),
    sku: variant.sku || null,
    tracked: item.tracked,
    requiresShipping: true,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    variant: () => variantView(ctx, variant),
    inventoryLevel: (args: Args) => {
      const locationId = parseGid(args.locationId, 'Location');
      const level = locationId === null ? undefined : ctx.store.level(ctx.shop, item.id, locationId);
      return level && locationId !== null ? levelView(ctx, item.id, locationId, level) : null;
    },
    inventoryLevels: (args: Args & ConnectionArgs) => {
      const rows = [...(ctx.shop.levels.get(item.id) ?? [])].map(([locationId, level]) => ({ locationId, level }));
      return connection(
        rows,
        (r) => [r.locationId],
        args,
        (r) => levelView(ctx, item.id, r.locationId, r.level),
      );
    },
  };
}

export function variantView(ctx: RequestContext, v: ShopVariant) {
  const product = ctx.shop.products.get(v.productId) as ShopProduct;
  return {
    __typename: 'ProductVariant',
    id: gid('ProductVariant', v.id),
    title: v.title,
    displayName: `${product.title} - ${v.title}`,
    sku: v.sku || null,
    barcode: v.barcode,
    price: money(v.price),
    compareAtPrice: v.compareAtPrice === null ? null : money(v.compareAtPrice),
    position: v.position,
    inventoryQuantity: totalAvailable(ctx.shop, v.inventoryItemId),
    selectedOptions: v.selectedOptions,
    createdAt: v.createdAt,
    updatedAt: v.updatedAt,
    product: () => productView(ctx, product),
    inventoryItem: () => itemView(ctx, ctx.shop.items.get(v.inventoryItemId) as ShopInventoryItem),
  };
}

function totalAvailable(shop: Shop, itemId: number) {
  let total = 0;
  for (const level of shop.levels.get(itemId)?.values() ?? []) total += level.available;
  return total;
}

export function productView(ctx: RequestContext, p: ShopProduct) {
  const variants = () => p.variantIds.map((id) => ctx.shop.variants.get(id) as ShopVariant);
  return {
    __typename: 'Product',
    id: gid('Product', p.id),
    title: p.title,
    handle: p.handle,
    vendor: p.vendor,
    productType: p.productType,
    descriptionHtml: p.descriptionHtml,
    description: p.descriptionHtml.replace(/<[^>]*>/g, ''),
    status: p.status,
    tags: p.tags,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    totalInventory: variants().reduce((s, v) => s + totalAvailable(ctx.shop, v.inventoryItemId), 0),
    hasOnlyDefaultVariant: p.variantIds.length === 1 && variants()[0]?.title === 'Default Title',
    options: () =>
      p.options.map((o, i) => ({
        id: gid('ProductOption', o.id),
        name: o.name,
        position: i + 1,
        values: o.values,
        optionValues: o.values.map((value, j) => ({
          id: gid('ProductOptionValue', o.id * 100 + j),
          name: value,
          hasVariants: variants().some((v) => v.selectedOptions[i]?.value === value),
        })),
      })),
    images: (args: ConnectionArgs) =>
      connection(
        p.images,
        (i) => [i.id],
        args,
        (i) => ({ id: gid('ProductImage', i.id), url: i.url, altText: i.altText }),
      ),
    variants: (args: ConnectionArgs) =>
      connection(
        variants(),
        (v) => [v.position, v.id],
        args,
        (v) => variantView(ctx, v),
      ),
  };
}
