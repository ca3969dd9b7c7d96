// The connector's stock writes through Shopify's own Admin API client (`@shopify/admin-api-client`): the
// 2025-01 compare-and-set and the 2026-01 keyed write a push replays after losing its answer.
import { describe, expect, it } from 'vitest';
import {
  SET_QUANTITIES_MUTATION,
  SET_QUANTITIES_ONCE_MUTATION,
} from '../../../../apps/server/src/connectors/shopify/inventory-queries.ts';
import { shopifyTestWorld } from './test-world.ts';

const world = shopifyTestWorld('write_inventory,read_products,read_locations');
const shop = 'inventory-client';

type SetAnswer = {
  inventorySetQuantities: {
    inventoryAdjustmentGroup: { id: string } | null;
    userErrors: { code: string; field: string[]; message: string }[];
  };
};

/** Two levels of the shop: their inventory item and location ids, and what they hold. */
async function twoLevels() {
  const snap = (await (await fetch(`${world.sandbox.url}/_control/shopify/${shop}`)).json()) as {
    locations: { id: string }[];
    stock: Record<string, Record<string, number>>;
  };
  const client = await world.officialClient(shop);
  const location = snap.locations[0]?.id as string;
  const skus = Object.keys(snap.stock).slice(0, 2);
  const levels = [];
  for (const sku of skus) {
    const found = await client.request<{ productVariants: { nodes: { inventoryItem: { id: string } }[] } }>(
      `query($q: String!) { productVariants(first: 1, query: $q) { nodes { inventoryItem { id } } } }`,
      { variables: { q: `sku:${sku}` } },
    );
    const item = found.data?.productVariants.nodes[0]?.inventoryItem.id as string;
    levels.push({ inventoryItemId: item, locationId: location, held: snap.stock[sku]?.[location] as number, sku });
  }
  return levels;
}

const stockOf = async (sku: string, location: string) =>
  (
    (await (await fetch(`${world.sandbox.url}/_control/shopify/${shop}`)).json()) as {
      stock: Record<string, Record<string, number>>;
    }
  ).stock[sku]?.[location];

describe('Shopify inventory writes through @shopify/admin-api-client', () => {
  it('sets with compareQuantity at 2025-01 and names a stale row', async () => {
    const [a, b] = await twoLevels();
    if (!a || !b) throw new Error('no levels');
    const client = await world.officialClient(shop);
    const answer = await client.request<SetAnswer>(SET_QUANTITIES_MUTATION, {
      variables: {
        input: {
          name: 'available',
          reason: 'correction',
          referenceDocumentUri: 'gid://switchyard/InventorySync/set',
          ignoreCompareQuantity: false,
          quantities: [
            { inventoryItemId: a.inventoryItemId, locationId: a.locationId, quantity: 5, compareQuantity: a.held },
            { inventoryItemId: b.inventoryItemId, locationId: b.locationId, quantity: 5, compareQuantity: b.held + 1 },
          ],
        },
      },
    });
    expect(answer.data?.inventorySetQuantities.userErrors).toEqual([
      expect.objectContaining({
        code: 'COMPARE_QUANTITY_STALE',
        field: ['input', 'quantities', '1', 'compareQuantity'],
      }),
    ]);
    // All or nothing: the good row did not land either.
    expect(await stockOf(a.sku, a.locationId)).toBe(a.held);
  });

  it('runs a keyed 2026-01 write once: the repeat answers the first adjustment group and sets nothing again', async () => {
    const [a, b] = await twoLevels();
    if (!a || !b) throw new Error('no levels');
    const client = await world.officialClient(shop, '2026-01');
    const write = (quantity: number) =>
      client.request<SetAnswer>(SET_QUANTITIES_ONCE_MUTATION, {
        variables: {
          key: 'push-replay-1',
          input: {
            name: 'available',
            reason: 'correction',
            referenceDocumentUri: 'gid://switchyard/InventorySync/set',
            quantities: [
              { inventoryItemId: a.inventoryItemId, locationId: a.locationId, quantity, changeFromQuantity: a.held },
              { inventoryItemId: b.inventoryItemId, locationId: b.locationId, quantity: 7, changeFromQuantity: null },
            ],
          },
        },
      });
    const first = await write(a.held + 3);
    expect(first.data?.inventorySetQuantities.userErrors).toEqual([]);
    expect(await stockOf(a.sku, a.locationId)).toBe(a.held + 3);
    // Merchant's own edit, then our repeat: answered from the first call, the edit stays.
    await world.control(`${shop}/stock`, { sku: a.sku, location: a.locationId, delta: 2 });
    const again = await write(a.held + 3);
    expect(again.data?.inventorySetQuantities.inventoryAdjustmentGroup?.id).toBe(
      first.data?.inventorySetQuantities.inventoryAdjustmentGroup?.id,
    );
    expect(await stockOf(a.sku, a.locationId)).toBe(a.held + 5);
    // The key with other parameters is refused.
    const other = await write(a.held + 4);
    expect(other.errors?.graphQLErrors?.[0]?.extensions?.code).toBe('IDEMPOTENCY_KEY_PARAMETER_MISMATCH');
    // A stale changeFromQuantity under a new key is named like compareQuantity was.
    const stale = await client.request<SetAnswer>(SET_QUANTITIES_ONCE_MUTATION, {
      variables: {
        key: 'push-replay-2',
        input: {
          name: 'available',
          reason: 'correction',
          quantities: [
            { inventoryItemId: a.inventoryItemId, locationId: a.locationId, quantity: 1, changeFromQuantity: a.held },
          ],
        },
      },
    });
    expect(stale.data?.inventorySetQuantities.userErrors).toEqual([
      expect.objectContaining({ code: 'CHANGE_FROM_QUANTITY_STALE' }),
    ]);
  });
});
