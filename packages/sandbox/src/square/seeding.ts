// A merchant's seeded shop: its locations, catalog and stock from the shared seed catalog, and a few past POS
// sales and open online orders.

import { createRng, seedFrom } from '../rng.ts';
import { type SeedOptions, seedCatalog } from '../seed.ts';
import { putObject } from './catalog.ts';
import { squareId } from './ids.ts';
import { DAY, type SquareLocation } from './model.ts';
import { buildOrder } from './sales.ts';
import type { Merchant } from './state.ts';

const TIMEZONES: Record<string, string> = {
  OR: 'America/Los_Angeles',
  WA: 'America/Los_Angeles',
  ID: 'America/Boise',
};

const DEFAULT_SEED = 20261122;

/** Replaces everything the seller holds with a freshly seeded shop. */
export function seedMerchant(m: Merchant, options: SeedOptions & { seed?: number }) {
  const seed = (options.seed ?? DEFAULT_SEED) ^ seedFrom(m.id);
  const catalog = seedCatalog({ ...options, seed });
  m.rng = createRng(seed);
  m.objects.clear();
  m.order = [];
  m.counts.clear();
  m.orders.clear();
  m.stockMoved.clear();
  m.payments.clear();
  m.refunds.clear();
  m.idempotency.clear();
  m.currency = catalog.currency;
  const created = new Date(m.tick() - 30 * DAY).toISOString();
  m.locations = catalog.locations.map((l) => ({
    id: squareId.stable(`${m.id}:location:${l.key}`, 13),
    name: l.name,
    merchant_id: m.id,
    status: 'ACTIVE',
    type: 'PHYSICAL',
    timezone: TIMEZONES[l.province] ?? 'America/Los_Angeles',
    currency: catalog.currency,
    country: l.country,
    language_code: 'en-US',
    created_at: created,
    capabilities: ['CREDIT_CARD_PROCESSING', 'AUTOMATIC_TRANSFERS'],
    business_name: m.businessName,
    address: {
      address_line_1: l.address1,
      locality: l.city,
      administrative_district_level_1: l.province,
      postal_code: l.zip,
      country: l.country,
    },
  }));
  const locationIds = new Map(catalog.locations.map((l, i) => [l.key, m.locations[i]?.id as string]));
  const categories = new Map<string, string>();
  for (const product of catalog.products) {
    let categoryId = categories.get(product.productType);
    if (!categoryId) {
      categoryId = squareId.stable(`${m.id}:category:${product.productType}`);
      categories.set(product.productType, categoryId);
      putObject(m, {
        type: 'CATEGORY',
        id: categoryId,
        category_data: { name: product.productType, category_type: 'REGULAR_CATEGORY', is_top_level: true },
      });
    }
    const itemId = squareId.stable(`${m.id}:item:${product.handle}`);
    putObject(m, {
      type: 'ITEM',
      id: itemId,
      item_data: {
        name: product.title,
        description: product.description,
        product_type: 'REGULAR',
        categories: [{ id: categoryId, ordinal: 0 }],
        reporting_category: { id: categoryId, ordinal: 0 },
        is_archived: false,
      },
    });
    product.variants.forEach((v, ordinal) => {
      const variationId = squareId.stable(`${m.id}:variation:${v.sku}`);
      putObject(m, {
        type: 'ITEM_VARIATION',
        id: variationId,
        item_variation_data: {
          item_id: itemId,
          name: v.title,
          sku: v.sku,
          upc: v.barcode,
          ordinal,
          pricing_type: 'FIXED_PRICING',
          price_money: { amount: v.price, currency: catalog.currency },
          track_inventory: true,
          sellable: true,
          stockable: true,
        },
      });
      for (const [key, quantity] of catalog.stock.get(v.sku) ?? []) {
        const locationId = locationIds.get(key);
        if (locationId) m.record(variationId, locationId, 'IN_STOCK', 'count', quantity, Date.parse(created));
      }
    });
  }
  // A few POS sales from the past days and two open online orders awaiting shipment.
  const variations = [...m.objects.values()].filter((o) => o.type === 'ITEM_VARIATION');
  for (let i = 0; i < 6 && variations.length > 0 && m.locations.length > 0; i++) {
    const lines = Array.from({ length: m.rng.int(1, 3) }, () => ({
      variation: m.rng.pick(variations),
      quantity: m.rng.int(1, 2),
    }));
    const at = Date.parse(created) + (i + 1) * 4 * DAY + m.rng.int(0, DAY);
    const location = m.locations[i % m.locations.length] as SquareLocation;
    const order = buildOrder(m, location.id, lines, new Date(at).toISOString(), i < 4 ? 'COMPLETED' : 'OPEN');
    if (i >= 4) {
      order.fulfillments = [
        {
          uid: squareId.uid(m.rng),
          type: 'SHIPMENT',
          state: 'PROPOSED',
          line_item_application: 'ALL',
          shipment_details: {
            recipient: {
              display_name: i === 4 ? 'Ada Lovelace' : 'Grace Hopper',
              email_address: i === 4 ? 'ada@example.com' : 'grace@example.com',
              address: {
                address_line_1: '1 Analytical Way',
                locality: 'Portland',
                administrative_district_level_1: 'OR',
                postal_code: '97201',
                country: 'US',
              },
            },
          },
        },
      ];
      order.source = { name: 'Square Online' };
    }
    // Paid before the seeded counts were taken: their stock has moved already.
    m.orders.set(order.id, order);
    m.stockMoved.add(order.id);
  }
}
