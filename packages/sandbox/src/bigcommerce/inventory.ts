import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { storeOf } from './api.ts';
import type { BigCommerceSim } from './sim.ts';
import type { BcLocation, BcStore, BcVariant } from './state.ts';
import { BcError, idList, paginate, stringList } from './support.ts';

type Query = Record<string, string | undefined>;

/** The most items one adjustment request may carry. */
export const MAX_ADJUSTMENT_ITEMS = 2000;

const renderLocation = (l: BcLocation) => ({
  id: l.id,
  code: l.code,
  label: l.label,
  description: '',
  managed_by_external_source: false,
  type_id: 'PHYSICAL',
  enabled: l.enabled,
  storefront_visibility: true,
  time_zone: 'America/Los_Angeles',
  address: {
    address1: l.address.address1,
    address2: '',
    city: l.address.city,
    state: l.address.state,
    zip: l.address.zip,
    email: '',
    phone: '',
    geo_coordinates: { latitude: 45.52, longitude: -122.68 },
    country_code: l.address.country_code,
  },
  special_hours: [],
});

/** Inventory V3: locations, per-location items, absolute and relative adjustments. */
export function inventoryRoutes(api: FastifyInstance, sim: BigCommerceSim) {
  const renderItem = (store: BcStore, v: BcVariant, locations: BcLocation[]) => ({
    identity: { sku: v.sku, variant_id: v.id, product_id: v.productId, sku_id: v.skuId },
    locations: locations.map((l) => {
      const level = store.stock.get(`${v.id}:${l.id}`) ?? { onHand: 0, safetyStock: 0 };
      const available = level.onHand - level.safetyStock;
      return {
        location_id: l.id,
        location_code: l.code,
        location_name: l.label,
        available_to_sell: available,
        total_inventory_onhand: level.onHand,
        location_enabled: l.enabled,
        settings: {
          safety_stock: level.safetyStock,
          is_in_stock: available > 0,
          warning_level: 0,
          bin_picking_number: '',
        },
      };
    }),
  });

  const filterVariants = (store: BcStore, q: Query) => {
    const variantIds = idList(q['variant_id:in']);
    const productIds = idList(q['product_id:in']);
    const skus = stringList(q['sku:in']);
    return [...store.variants.values()].filter(
      (v) =>
        (!variantIds || variantIds.includes(v.id)) &&
        (!productIds || productIds.includes(v.productId)) &&
        (!skus || skus.includes(v.sku)),
    );
  };

  api.get<{ Querystring: Query }>('/v3/inventory/locations', async (req) => {
    const store = storeOf(req);
    const q = req.query;
    const ids = idList(q['location_id:in']);
    const codes = stringList(q['location_code:in']);
    const locations = store.locations.filter(
      (l) =>
        (!ids || ids.includes(l.id)) &&
        (!codes || codes.includes(l.code)) &&
        (q.is_active === undefined || String(l.enabled) === q.is_active) &&
        (q.is_default === undefined || String(l.id === 1) === q.is_default),
    );
    const page = paginate(locations, q, { maxLimit: 250 });
    return { data: page.data.map(renderLocation), meta: page.meta };
  });

  api.get<{ Querystring: Query }>('/v3/inventory/items', async (req) => {
    const store = storeOf(req);
    const ids = idList(req.query['location_id:in']);
    const locations = store.locations.filter((l) => !ids || ids.includes(l.id));
    const page = paginate(filterVariants(store, req.query), req.query, { maxLimit: 1000 });
    return { data: page.data.map((v) => renderItem(store, v, locations)), meta: page.meta };
  });

  api.get<{ Params: { id: string }; Querystring: Query }>('/v3/inventory/locations/:id/items', async (req) => {
    const store = storeOf(req);
    const location = store.locations.find((l) => l.id === Number(req.params.id));
    if (!location) throw new BcError(404, 'Location not found');
    const page = paginate(filterVariants(store, req.query), req.query, { maxLimit: 1000 });
    return {
      data: page.data.map((v) => {
        const item = renderItem(store, v, [location]);
        const at = item.locations[0] as (typeof item.locations)[number];
        return {
          identity: item.identity,
          available_to_sell: at.available_to_sell,
          total_inventory_onhand: at.total_inventory_onhand,
          settings: at.settings,
        };
      }),
      meta: page.meta,
    };
  });

  const adjust = (mode: 'absolute' | 'relative') => async (req: { body: unknown } & Parameters<typeof storeOf>[0]) => {
    const store = storeOf(req);
    const body = (req.body ?? {}) as { items?: unknown; reason?: unknown };
    if (!Array.isArray(body.items) || body.items.length === 0) {
      throw new BcError(422, 'JSON data is missing or invalid', { items: 'error.path.missing' });
    }
    if (body.items.length > MAX_ADJUSTMENT_ITEMS) {
      throw new BcError(
        413,
        `The request payload is too large. The maximum items allowed in the array is ${MAX_ADJUSTMENT_ITEMS}.`,
      );
    }
    const bySku = new Map([...store.variants.values()].map((v) => [v.sku, v]));
    // All or nothing: every row is checked before any stock moves.
    const changes = body.items.map((raw: unknown, i: number) => {
      const item = (raw ?? {}) as Record<string, unknown>;
      const identities = ['sku', 'variant_id', 'product_id'].filter((k) => item[k] !== undefined);
      if (identities.length !== 1) {
        throw new BcError(422, 'Each item needs exactly one of sku, variant_id or product_id', {
          [`items[${i}]`]: 'error.identity',
        });
      }
      if (!Number.isInteger(item.quantity)) {
        throw new BcError(422, 'JSON data is missing or invalid', {
          [`items[${i}].quantity`]: 'error.expected.jsnumber',
        });
      }
      const quantity = item.quantity as number;
      if (mode === 'absolute' && quantity < 0) {
        throw new BcError(422, 'JSON data is missing or invalid', { [`items[${i}].quantity`]: 'error.min' });
      }
      const location = store.locations.find((l) => l.id === item.location_id);
      if (!location) {
        throw new BcError(422, `[Location with id ${String(item.location_id)} does not exist]`, {
          [`items[${i}].location_id`]: 'error.location.missing',
        });
      }
      let variant: BcVariant | undefined;
      let identity: string;
      if (item.variant_id !== undefined) {
        variant = store.variants.get(Number(item.variant_id));
        identity = `variant_id ${String(item.variant_id)}`;
      } else if (item.sku !== undefined) {
        variant = bySku.get(String(item.sku));
        identity = `sku ${String(item.sku)}`;
      } else {
        const product = store.products.get(Number(item.product_id));
        identity = `product_id ${String(item.product_id)}`;
        if (product && product.inventoryTracking === 'variant') {
          throw new BcError(
            422,
            `[Item with product_id ${product.id} is tracked by variant, please update stock by variant id or sku]`,
          );
        }
        variant = product ? store.variants.get(product.baseVariantId) : undefined;
      }
      if (!variant) throw new BcError(422, `Items with identity: [${identity}] were not found`);
      const product = store.products.get(variant.productId);
      if (item.product_id === undefined && product?.inventoryTracking === 'product') {
        throw new BcError(422, `[Item with ${identity} is tracked by product, please update stock by product id]`);
      }
      const level = store.stock.get(`${variant.id}:${location.id}`);
      if (mode === 'relative' && !level?.absoluteSet) {
        throw new BcError(422, `Items with identity: [${identity}] requires absolute adjustment before relative`);
      }
      if (mode === 'relative' && (level?.onHand ?? 0) + quantity < 0) {
        throw new BcError(422, `Items with identity: [${identity}] cannot go below zero on hand`);
      }
      return { variant, location, quantity };
    });
    for (const c of changes) {
      sim.changeStock(
        store,
        c.variant.id,
        c.location.id,
        mode === 'absolute' ? { absolute: c.quantity } : { delta: c.quantity },
      );
    }
    return { transaction_id: randomUUID() };
  };

  api.put('/v3/inventory/adjustments/absolute', adjust('absolute'));
  api.post('/v3/inventory/adjustments/relative', adjust('relative'));
}
