// The stock part of a catalog import (issue 6): what the channel holds at its mapped locations, the first stock
// of levels of ours that never had any, and the channel's orders taken in before that stock (orders.seeded.ts).
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Connector } from '../../connectors/types.ts';
import type { Db } from '../../db/client.ts';
import type { ChannelRow } from '../channels/channels.service.ts';
import { channelStock, inventoryMovements } from '../inventory/inventory.tables.ts';
import { applyMovements, type MovementInput, markDirty } from '../inventory/ledger.ts';
import { channelOf } from '../orders/orders.import.ts';
import { ordersAwaitingStock, type SeededLevel } from '../orders/orders.seeded.ts';
import type { MappedLocation } from './catalog-import.ts';
import { listings } from './products.tables.ts';
/**
 * Reads the channel's quantities at its locations that map to ours and records them as what the channel
 * holds (channel_stock). A level of ours that never had a movement takes the channel's quantity as its
 * first stock (reason import, once per channel, variant and location); later imports never overwrite the
 * ledger, the engine pushes ours instead.
 */
export async function importStock(
  db: Db,
  row: ChannelRow,
  connector: Connector,
  mapped: MappedLocation[],
  listed: Set<string>,
  /** Our locations this run seeds no level at. */
  noSeedAt: Set<string> = new Set(),
): Promise<{ levels: number; seeded: number; channelIds: string[]; providerMs: number; applyMs: number }> {
  if (mapped.length === 0 || listed.size === 0)
    return { levels: 0, seeded: 0, channelIds: [], providerMs: 0, applyMs: 0 };
  const locationOf = new Map(mapped.map((m) => [m.externalLocationId, m.locationId]));
  const itemRows = await db
    .select({ variantId: listings.variantId, item: listings.inventoryItemId })
    .from(listings)
    .where(eq(listings.channelId, row.id));
  const variantOf = new Map<string, string>();
  for (const r of itemRows) if (r.item && listed.has(r.variantId)) variantOf.set(r.item, r.variantId);

  let levels = 0;
  let seeded = 0;
  let providerMs = 0;
  let applyMs = 0;
  const channelIds = new Set<string>();
  let cursor: string | null = null;
  do {
    const t0 = Date.now();
    const page = await connector.getInventoryLevels({ cursor, locationExternalIds: [...locationOf.keys()] });
    providerMs += Date.now() - t0;
    cursor = page.nextCursor;
    const now = new Date();
    const rows = page.items.flatMap((l) => {
      const variantId = variantOf.get(l.inventoryItemId);
      const locationId = locationOf.get(l.locationExternalId);
      return variantId && locationId ? [{ ...l, variantId, locationId }] : [];
    });
    if (rows.length === 0) continue;
    levels += rows.length;
    await db.transaction(async (tx) => {
      // Levels that never moved take the channel's quantity (the first mapped channel location wins).
      const moved = await tx
        .selectDistinct({ variantId: inventoryMovements.variantId, locationId: inventoryMovements.locationId })
        .from(inventoryMovements)
        .where(
          and(
            eq(inventoryMovements.accountId, row.accountId),
            inArray(inventoryMovements.variantId, [...new Set(rows.map((r) => r.variantId))]),
          ),
        );
      const hasMoved = new Set(moved.map((m) => `${m.variantId}|${m.locationId}`));
      const seeds = new Map<string, MovementInput>();
      const seededFrom = new Map<string, SeededLevel>();
      for (const r of rows) {
        const key = `${r.variantId}|${r.locationId}`;
        if (hasMoved.has(key) || seeds.has(key) || r.available <= 0 || noSeedAt.has(r.locationId)) continue;
        seeds.set(key, {
          variantId: r.variantId,
          locationId: r.locationId,
          setTo: r.available,
          reason: 'import',
          source: row.type,
          reference: `channel ${row.id}`,
          idempotencyKey: `import:${row.id}:${r.variantId}:${r.locationId}`,
        });
        seededFrom.set(key, {
          variantId: r.variantId,
          locationId: r.locationId,
          externalLocationId: r.locationExternalId,
          inventoryItemId: r.inventoryItemId,
        });
      }
      // The channel's orders taken in before these levels had stock (their location not mapped yet, or mapped and
      // empty): the number seeded has their units out already (orders.seeded.ts). Their rows are locked first, as
      // an order import locks them: orders, then the channel's levels, then ours.
      const awaiting = await ordersAwaitingStock(tx, channelOf(row), [...seededFrom.values()]);
      // The channel's levels, locked in the order the stock pass and the order import take them.
      const sorted = [...rows].sort((a, b) =>
        a.variantId === b.variantId
          ? a.locationExternalId < b.locationExternalId
            ? -1
            : a.locationExternalId > b.locationExternalId
              ? 1
              : 0
          : a.variantId < b.variantId
            ? -1
            : 1,
      );
      await tx
        .insert(channelStock)
        .values(
          sorted.map((r) => ({
            accountId: row.accountId,
            channelId: row.id,
            variantId: r.variantId,
            externalLocationId: r.locationExternalId,
            locationId: r.locationId,
            inventoryItemId: r.inventoryItemId,
            channelQty: r.available,
            channelQtyAt: now,
            channelQtySeenAt: now,
            updatedAt: now,
          })),
        )
        .onConflictDoUpdate({
          target: [channelStock.channelId, channelStock.variantId, channelStock.externalLocationId],
          set: {
            locationId: sql`excluded.location_id`,
            inventoryItemId: sql`excluded.inventory_item_id`,
            channelQty: sql`excluded.channel_qty`,
            channelQtyAt: now,
            channelQtySeenAt: now,
            updatedAt: now,
          },
        });
      if (seeds.size === 0) return;
      // Routing those orders locks our levels of their SKUs everywhere: taken before the seeding's own.
      await awaiting?.lockLevels([...seeds.values()].map((m) => m.variantId));
      const t1 = Date.now();
      const applied = await applyMovements(tx, row.accountId, [...seeds.values()]);
      applyMs += Date.now() - t1;
      const done = applied.filter((a) => a.applied);
      seeded += done.length;
      const moves = new Set(done.map((a) => a.variantId));
      if (awaiting) {
        const levelsSeeded = done.flatMap((a) => {
          const level = seededFrom.get(`${a.variantId}|${a.locationId}`);
          return level ? [level] : [];
        });
        for (const v of await awaiting.claim(levelsSeeded)) moves.add(v);
      }
      if (moves.size) {
        for (const id of await markDirty(tx, row.accountId, [...moves])) {
          channelIds.add(id);
        }
      }
    });
  } while (cursor);
  return { levels, seeded, channelIds: [...channelIds], providerMs, applyMs };
}
