// Locations and inventory: the location, inventory item and inventory level queries, and the
// inventorySetQuantities and inventoryAdjustQuantities mutations.

import { type ConnectionArgs, connection } from '../connection.ts';
import {
  gid,
  isoNow,
  onHand,
  parseGid,
  quantityOf,
  type ShopInventoryItem,
  type ShopLevel,
  type ShopLocation,
} from '../model.ts';
import { matches, parseSearch } from '../search.ts';
import { itemView, levelView, locationView } from './catalog-views.ts';
import {
  type Args,
  atLeast,
  cleanPath,
  findLocation,
  inputArray,
  type RequestContext,
  requireScope,
  sortKeyOf,
} from './shared.ts';

const INVENTORY_REASONS = new Set([
  'correction',
  'cycle_count_available',
  'damaged',
  'movement_created',
  'movement_updated',
  'movement_received',
  'movement_canceled',
  'other',
  'promotion',
  'quality_control',
  'received',
  'reservation_created',
  'reservation_deleted',
  'reservation_updated',
  'restock',
  'safety_stock',
  'shrinkage',
]);

export function inventoryQueries(ctx: RequestContext) {
  const { shop, store } = ctx;
  return {
    location: (args: Args) => {
      requireScope(ctx, 'location', 'read_locations', 'read_inventory');
      const loc = args.id == null ? shop.locations[0] : findLocation(ctx, args.id);
      return loc ? locationView(ctx, loc) : null;
    },
    locations: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'locations', 'read_locations');
      const terms = parseSearch(args.query as string | undefined);
      const rows = shop.locations.filter(
        (l) =>
          (args.includeInactive || l.isActive) &&
          matches(terms, (f) => (f === 'name' || f === null ? l.name : f === 'id' ? l.id : undefined)),
      );
      const key = sortKeyOf(args.sortKey, { ID: (l: ShopLocation) => l.id, NAME: (l: ShopLocation) => l.name }, 'NAME');
      return connection(
        rows,
        (l) => [key(l as never), l.id],
        args,
        (l) => locationView(ctx, l),
      );
    },
    inventoryItem: (args: Args) => {
      requireScope(ctx, 'inventoryItem', 'read_inventory', 'read_products');
      const n = parseGid(args.id, 'InventoryItem');
      const item = n === null ? undefined : shop.items.get(n);
      return item ? itemView(ctx, item) : null;
    },
    inventoryItems: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'inventoryItems', 'read_inventory', 'read_products');
      const terms = parseSearch(args.query as string | undefined);
      const rows = [...shop.items.values()].filter((i) =>
        matches(terms, (f) =>
          f === 'sku'
            ? shop.variants.get(i.variantId)?.sku
            : f === 'updated_at'
              ? i.updatedAt
              : f === 'id'
                ? i.id
                : undefined,
        ),
      );
      return connection(
        rows,
        (i) => [i.id],
        args,
        (i) => itemView(ctx, i),
      );
    },
    inventoryLevel: (args: Args) => {
      requireScope(ctx, 'inventoryLevel', 'read_inventory');
      const m = /^gid:\/\/shopify\/InventoryLevel\/(\d+)\?inventory_item_id=(\d+)$/.exec(String(args.id));
      if (!m) return null;
      const level = store.level(shop, Number(m[2]), Number(m[1]));
      return level ? levelView(ctx, Number(m[2]), Number(m[1]), level) : null;
    },
  };
}

type Change = { name: string; delta: number; after: number; itemId: number; locationId: number };

const checkQuantityLimits = (
  errors: { field: string[]; message: string; code: string }[],
  field: string[],
  value: number,
) => {
  if (value < 0)
    errors.push({ field, message: 'The quantity can\u2019t be negative.', code: 'INVALID_QUANTITY_NEGATIVE' });
  else if (value > 1_000_000_000)
    errors.push({
      field,
      message: 'The quantity can\u2019t be higher than 1,000,000,000.',
      code: 'INVALID_QUANTITY_TOO_HIGH',
    });
};

export function inventoryMutations(ctx: RequestContext) {
  const { shop, store } = ctx;

  const adjustmentGroup = (reason: string, uri: unknown, changes: Change[]) => ({
    id: gid('InventoryAdjustmentGroup', ++shop.adjustmentGroups + 9_000_000),
    createdAt: isoNow(),
    reason,
    referenceDocumentUri: (uri as string | undefined) ?? null,
    changes: (args: Args) => {
      const items = (args.inventoryItemIds as string[] | undefined)?.map((id) => parseGid(id, 'InventoryItem'));
      const locations = (args.locationIds as string[] | undefined)?.map((id) => parseGid(id, 'Location'));
      const names = args.quantityNames as string[] | undefined;
      return changes
        .filter(
          (c) =>
            (!items || items.includes(c.itemId)) &&
            (!locations || locations.includes(c.locationId)) &&
            (!names || names.includes(c.name)),
        )
        .map((c) => ({
          name: c.name,
          delta: c.delta,
          quantityAfterChange: c.after,
          ledgerDocumentUri: null,
          item: () => itemView(ctx, shop.items.get(c.itemId) as ShopInventoryItem),
          location: () => locationView(ctx, shop.locations.find((l) => l.id === c.locationId) as ShopLocation),
        }));
    },
  });

  /** Checks the item and location of row `i`; returns the level or pushes a userError. */
  const rowLevel = (
    errors: { field: string[]; message: string; code: string }[],
    prefix: (string | number)[],
    row: { inventoryItemId: string; locationId: string },
  ) => {
    const itemId = parseGid(row.inventoryItemId, 'InventoryItem');
    const item = itemId === null ? undefined : shop.items.get(itemId);
    if (!item || itemId === null) {
      errors.push({
        field: cleanPath(...prefix, 'inventoryItemId'),
        message: 'The specified inventory item could not be found.',
        code: 'INVALID_INVENTORY_ITEM',
      });
      return null;
    }
    const location = findLocation(ctx, row.locationId);
    if (!location) {
      errors.push({
        field: cleanPath(...prefix, 'locationId'),
        message: 'The specified location could not be found.',
        code: 'INVALID_LOCATION',
      });
      return null;
    }
    const level = store.level(shop, itemId, location.id);
    if (!level) {
      errors.push({
        field: cleanPath(...prefix, 'locationId'),
        message: 'The specified inventory item is not stocked at the location.',
        code: 'ITEM_NOT_STOCKED_AT_LOCATION',
      });
      return null;
    }
    if (!item.tracked) {
      errors.push({
        field: cleanPath(...prefix, 'inventoryItemId'),
        message: 'The quantities of an untracked inventory item cannot be changed.',
        code: 'NON_MUTABLE_INVENTORY_ITEM',
      });
      return null;
    }
    return { itemId, locationId: location.id, level };
  };

  return {
    inventorySetQuantities: (args: Args) => {
      requireScope(ctx, 'inventorySetQuantities', 'write_inventory');
      const input = args.input as {
        name: string;
        reason: string;
        referenceDocumentUri?: string;
        ignoreCompareQuantity?: boolean;
        quantities: {
          inventoryItemId: string;
          locationId: string;
          quantity: number;
          compareQuantity?: number | null;
          changeFromQuantity?: number | null;
        }[];
      };
      inputArray(input.quantities, 'quantities');
      const errors: { field: string[]; message: string; code: string }[] = [];
      if (input.name !== 'available' && input.name !== 'on_hand')
        errors.push({
          field: ['input', 'name'],
          message: 'The quantity name must be either \u2018available\u2019 or \u2018on_hand\u2019.',
          code: 'INVALID_NAME',
        });
      if (!INVENTORY_REASONS.has(input.reason))
        errors.push({
          field: ['input', 'reason'],
          message: 'The specified reason is invalid.',
          code: 'INVALID_REASON',
        });
      const changeFrom = atLeast(ctx, '2026-01');
      const seen = new Set<string>();
      const rows: { itemId: number; locationId: number; level: ShopLevel; quantity: number }[] = [];
      input.quantities.forEach((row, i) => {
        const prefix = ['input', 'quantities', i];
        const found = rowLevel(errors, prefix, row);
        if (!found) return;
        const pair = `${found.itemId}:${found.locationId}`;
        if (seen.has(pair)) {
          errors.push({
            field: cleanPath(...prefix),
            message: 'The combination of inventoryItemId and locationId must be unique.',
            code: 'NO_DUPLICATE_INVENTORY_ITEM_ID_GROUP_ID_PAIR',
          });
          return;
        }
        seen.add(pair);
        checkQuantityLimits(errors, cleanPath(...prefix, 'quantity'), row.quantity);
        const current = quantityOf(found.level, input.name === 'on_hand' ? 'on_hand' : 'available') as number;
        if (changeFrom && 'changeFromQuantity' in row) {
          if (row.changeFromQuantity != null && row.changeFromQuantity !== current)
            errors.push({
              field: cleanPath(...prefix, 'changeFromQuantity'),
              message: 'The changeFromQuantity argument no longer matches the persisted quantity.',
              code: 'CHANGE_FROM_QUANTITY_STALE',
            });
        } else if (row.compareQuantity != null) {
          if (!input.ignoreCompareQuantity && row.compareQuantity !== current)
            errors.push({
              field: cleanPath(...prefix, 'compareQuantity'),
              message: 'The compareQuantity argument no longer matches the persisted quantity.',
              code: 'COMPARE_QUANTITY_STALE',
            });
        } else if (!input.ignoreCompareQuantity) {
          errors.push({
            field: cleanPath(...prefix, 'compareQuantity'),
            message: 'The compareQuantity value is required unless ignoreCompareQuantity is true.',
            code: 'COMPARE_QUANTITY_REQUIRED',
          });
        }
        rows.push({ ...found, quantity: row.quantity });
      });
      // All or nothing, as Shopify applies the group.
      if (errors.length > 0) return { inventoryAdjustmentGroup: null, userErrors: errors };
      const at = isoNow();
      const changes: Change[] = [];
      for (const r of rows) {
        const before = input.name === 'on_hand' ? onHand(r.level) : r.level.available;
        const delta = r.quantity - before;
        r.level.available += delta;
        if (delta !== 0) r.level.updatedAt = at;
        changes.push({
          name: 'available',
          delta,
          after: r.level.available,
          itemId: r.itemId,
          locationId: r.locationId,
        });
        changes.push({ name: 'on_hand', delta, after: onHand(r.level), itemId: r.itemId, locationId: r.locationId });
      }
      for (const r of rows) if (r.level.updatedAt === at) store.emitLevel(shop, r.itemId, r.locationId);
      return {
        inventoryAdjustmentGroup: adjustmentGroup(input.reason, input.referenceDocumentUri, changes),
        userErrors: [],
      };
    },

    inventoryAdjustQuantities: (args: Args) => {
      requireScope(ctx, 'inventoryAdjustQuantities', 'write_inventory');
      const input = args.input as {
        name: string;
        reason: string;
        referenceDocumentUri?: string;
        changes: { delta: number; inventoryItemId: string; locationId: string; changeFromQuantity?: number | null }[];
      };
      inputArray(input.changes, 'changes');
      const errors: { field: string[]; message: string; code: string }[] = [];
      const adjustable = ['available', 'damaged', 'incoming', 'quality_control', 'reserved', 'safety_stock'];
      if (!adjustable.includes(input.name))
        errors.push({
          field: ['input', 'name'],
          message: 'The quantity name is invalid.',
          code: 'INVALID_QUANTITY_NAME',
        });
      if (!INVENTORY_REASONS.has(input.reason))
        errors.push({
          field: ['input', 'reason'],
          message: 'The specified reason is invalid.',
          code: 'INVALID_REASON',
        });
      const rows: { itemId: number; locationId: number; level: ShopLevel; delta: number }[] = [];
      input.changes.forEach((row, i) => {
        const prefix = ['input', 'changes', i];
        const found = rowLevel(errors, prefix, row);
        if (!found) return;
        const field = input.name as Exclude<keyof ShopLevel, 'createdAt' | 'updatedAt'>;
        if (atLeast(ctx, '2026-01') && row.changeFromQuantity != null && row.changeFromQuantity !== found.level[field])
          errors.push({
            field: cleanPath(...prefix, 'changeFromQuantity'),
            message: 'The changeFromQuantity argument no longer matches the persisted quantity.',
            code: 'CHANGE_FROM_QUANTITY_STALE',
          });
        rows.push({ ...found, delta: row.delta });
      });
      if (errors.length > 0) return { inventoryAdjustmentGroup: null, userErrors: errors };
      const at = isoNow();
      const changes: Change[] = [];
      const field = input.name as Exclude<keyof ShopLevel, 'createdAt' | 'updatedAt'>;
      for (const r of rows) {
        r.level[field] += r.delta;
        r.level.updatedAt = at;
        changes.push({
          name: field,
          delta: r.delta,
          after: r.level[field],
          itemId: r.itemId,
          locationId: r.locationId,
        });
        if (field !== 'incoming')
          changes.push({
            name: 'on_hand',
            delta: r.delta,
            after: onHand(r.level),
            itemId: r.itemId,
            locationId: r.locationId,
          });
      }
      if (field === 'available') for (const r of rows) store.emitLevel(shop, r.itemId, r.locationId);
      return {
        inventoryAdjustmentGroup: adjustmentGroup(input.reason, input.referenceDocumentUri, changes),
        userErrors: [],
      };
    },
  };
}
