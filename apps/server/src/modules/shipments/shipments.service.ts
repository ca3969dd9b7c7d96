// Shipments (issue 15): an order's units leave a store in parcels with a carrier's label. Creating one asks the
// carrier for every service's rate per parcel (rate shopping, cheapest and fastest marked); buying is
// shipments.buy.ts. Reads here are scoped to the caller's account.
import {
  SHIPMENT_MESSAGES,
  type Shipment,
  ShipmentCreateInput,
  type ShipmentList,
  type ShipmentRate,
} from '@switchyard/contracts';
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { CarrierError, type EasyPostClient, type EpAddressInput } from '../../carriers/easypost.ts';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { type LocationRow, locationById, locationByStoreId, locationsByIds } from '../locations/locations.read.ts';
import { unitsLeft } from '../orders/orders.fulfil.ts';
import { actorName } from '../orders/orders.service.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';
import { carrierClient } from './shipments.carrier.ts';
import { getLabelSettings } from './shipments.settings.ts';
import { type CarrierAddress, shipmentItems, shipmentPackages, shipments } from './shipments.tables.ts';

type ShipmentRow = typeof shipments.$inferSelect;

export async function loadOrderRow(db: Db, accountId: string, orderId: string) {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId)));
  if (!row) throw new DomainError('NOT_FOUND', 'Order not found');
  return row;
}

/** The shipments of an order, newest first, with packages and items. */
export async function listShipments(db: Db, actor: Actor, orderId: string): Promise<ShipmentList> {
  await loadOrderRow(db, actor.accountId, orderId);
  const rows = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.accountId, actor.accountId), eq(shipments.orderId, orderId)))
    .orderBy(desc(shipments.createdAt), desc(shipments.id));
  return { results: await toDtos(db, actor.accountId, rows) };
}

export async function getShipment(db: Db, accountId: string, id: string): Promise<Shipment> {
  const [row] = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.id, id), eq(shipments.accountId, accountId)));
  if (!row) throw new DomainError('NOT_FOUND', SHIPMENT_MESSAGES.notFound);
  const [dto] = await toDtos(db, accountId, [row]);
  return dto as Shipment;
}

async function toDtos(db: Db, accountId: string, rows: ShipmentRow[]): Promise<Shipment[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const locationIds = [...new Set(rows.map((r) => r.locationId).filter((l): l is string => !!l))];
  const [packages, items, stores] = await Promise.all([
    db
      .select()
      .from(shipmentPackages)
      .where(inArray(shipmentPackages.shipmentId, ids))
      .orderBy(asc(shipmentPackages.position)),
    db
      .select({ item: shipmentItems, sku: orderLines.sku, title: orderLines.title })
      .from(shipmentItems)
      .innerJoin(orderLines, eq(orderLines.id, shipmentItems.lineId))
      .where(inArray(shipmentItems.shipmentId, ids))
      .orderBy(asc(orderLines.position)),
    locationsByIds(db, accountId, locationIds),
  ]);
  const storeOf = new Map(stores.map((s) => [s.id, { id: s.id, name: s.name, storeId: s.storeId }]));
  return rows.map((r) => ({
    id: r.id,
    orderId: r.orderId,
    store: storeOf.get(r.locationId ?? '') ?? null,
    status: r.status,
    carrier: r.carrier,
    service: r.service,
    amount: r.amount,
    currency: r.currency,
    labelSize: r.labelSize,
    trackingCode: r.trackingCode,
    trackingUrl: r.trackingUrl,
    trackingStatus: r.trackingStatus,
    channelStatus: r.writeBackStatus,
    channelMessage: r.writeBackMessage,
    error: r.error,
    rates: r.rates,
    packages: packages
      .filter((p) => p.shipmentId === r.id)
      .map((p) => ({
        position: p.position,
        weight: p.weight,
        length: p.length,
        width: p.width,
        height: p.height,
        trackingCode: p.trackingCode,
        trackingUrl: p.trackingUrl,
        trackingStatus: p.trackingStatus,
        hasLabel: !!p.labelUrl,
      })),
    items: items
      .filter((i) => i.item.shipmentId === r.id)
      .map((i) => ({
        allocationId: i.item.allocationId,
        lineId: i.item.lineId,
        sku: i.sku,
        title: i.title,
        quantity: i.item.quantity,
      })),
    createdAt: r.createdAt,
    purchasedAt: r.purchasedAt,
  }));
}

/** Rates per `carrier:service` over every parcel: summed, the slowest parcel's days; cheapest and fastest marked. */
export function combineRates(
  perPackage: { carrier: string; service: string; rate: string; currency: string; delivery_days: number | null }[][],
): ShipmentRate[] {
  const byKey = new Map<string, ShipmentRate & { count: number }>();
  for (const rates of perPackage) {
    for (const r of rates) {
      const key = `${r.carrier}:${r.service}`;
      const amount = Math.round(Number(r.rate) * 100);
      const seen = byKey.get(key);
      if (seen) {
        seen.amount += amount;
        seen.count += 1;
        seen.deliveryDays =
          seen.deliveryDays === null || r.delivery_days === null ? null : Math.max(seen.deliveryDays, r.delivery_days);
      } else {
        byKey.set(key, {
          key,
          carrier: r.carrier,
          service: r.service,
          amount,
          currency: r.currency,
          deliveryDays: r.delivery_days,
          cheapest: false,
          fastest: false,
          count: 1,
        });
      }
    }
  }
  const rates = [...byKey.values()]
    .filter((r) => r.count === perPackage.length)
    .map(({ count, ...r }) => r)
    .sort((a, b) => a.amount - b.amount || (a.deliveryDays ?? 99) - (b.deliveryDays ?? 99));
  const cheapest = rates[0];
  if (cheapest) cheapest.cheapest = true;
  const fastest = [...rates].sort((a, b) => (a.deliveryDays ?? 99) - (b.deliveryDays ?? 99) || a.amount - b.amount)[0];
  if (fastest && fastest.deliveryDays !== null) fastest.fastest = true;
  return rates;
}

const addressOfLocation = (l: LocationRow): CarrierAddress => ({
  name: l.name,
  street1: l.address.address1 ?? null,
  street2: l.address.address2 ?? null,
  city: l.address.city ?? null,
  state: l.address.province ?? null,
  zip: l.address.zip ?? null,
  country: l.address.country || 'US',
  phone: l.address.phone ?? null,
});

/** Carriers take ISO country codes; channels and forms may give the name. */
export function countryCode(country: string | null | undefined): string {
  const c = (country ?? '').trim();
  if (!c) return 'US';
  if (/^[a-z]{2}$/i.test(c)) return c.toUpperCase();
  if (/^(united states( of america)?|usa|u\.s\.a?\.?)$/i.test(c)) return 'US';
  if (/^canada$/i.test(c)) return 'CA';
  if (/^(united kingdom|great britain)$/i.test(c)) return 'GB';
  return c;
}

const toCarrier = (a: CarrierAddress): EpAddressInput => ({ ...a, country: countryCode(a.country) });

/**
 * POST orders/{id}/shipments: the parcels and the allocations they ship (default: everything still to ship at
 * the store), from the store's address to the order's. Asks the carrier for rates; a carrier failure leaves
 * nothing behind and says why.
 */
export async function createShipment(
  services: Services,
  actor: Actor,
  orderId: string,
  raw: unknown,
  client: EasyPostClient = carrierClient(services),
): Promise<Shipment> {
  const input = ShipmentCreateInput.parse(raw ?? {});
  const db = services.db;
  const order = await loadOrderRow(db, actor.accountId, orderId);
  if (order.status === 7) throw new DomainError('INVALID_STATE', SHIPMENT_MESSAGES.cancelled);
  const ship = order.shippingAddress;
  if (!ship?.address1 || !ship.zip) throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.noAddress);
  let store: LocationRow | undefined;
  if (input.store_id) {
    store = await locationByStoreId(db, actor.accountId, input.store_id);
    if (!store) throw new DomainError('NOT_FOUND', `No location has store id ${input.store_id}.`);
  }
  // Allocations still to ship: allocated or picked with units left, and in no shipment being bought or rated
  // (a bought shipment's items are settled: their units left the store, the rest may ship again).
  const open = await db
    .select()
    .from(orderAllocations)
    .where(
      and(
        eq(orderAllocations.orderId, orderId),
        inArray(orderAllocations.status, [1, 2]),
        sql`not exists (select 1 from ${shipmentItems} si join ${shipments} s on s.id = si.shipment_id
          where si.allocation_id = ${orderAllocations.id} and si.active = 1 and s.status in ('buying', 'purchased'))`,
      ),
    )
    .orderBy(asc(orderAllocations.createdAt), asc(orderAllocations.id));
  let chosen = open.filter((a) => unitsLeft(a) > 0);
  const asked = new Map<string, number>();
  if (input.items?.length) {
    for (const i of input.items) {
      if (asked.has(i.allocation_id)) throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.repeatedItem);
      asked.set(i.allocation_id, i.quantity ?? 0);
    }
    chosen = chosen.filter((a) => asked.has(a.id));
    if (chosen.length !== asked.size) throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.itemNotOpen);
    for (const a of chosen) {
      const want = asked.get(a.id) ?? 0;
      if (want > unitsLeft(a)) {
        const [line] = await db
          .select({ sku: orderLines.sku, title: orderLines.title })
          .from(orderLines)
          .where(eq(orderLines.id, a.lineId));
        throw new DomainError(
          'VALIDATION',
          SHIPMENT_MESSAGES.tooMany(line?.sku ?? line?.title ?? 'That line', unitsLeft(a)),
        );
      }
    }
  }
  /** Units of the allocation this shipment carries: as asked, else all that is left. */
  const unitsOf = (a: (typeof open)[number]) => asked.get(a.id) || unitsLeft(a);
  const locationId = store?.id ?? chosen[0]?.locationId ?? null;
  if (input.items?.length && chosen.some((a) => a.locationId !== locationId))
    throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.mixedStores);
  chosen = chosen.filter((a) => a.locationId === locationId);
  if (chosen.length === 0 || !locationId) throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.noItems);
  if (!store) store = await locationById(db, actor.accountId, locationId);
  if (!store) throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.noItems);
  const from = addressOfLocation(store);
  if (!from.street1 || !from.zip) throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.storeAddress(store.name));
  const to: CarrierAddress = {
    name: ship.name ?? order.customerName,
    company: ship.company ?? null,
    street1: ship.address1,
    street2: ship.address2 ?? null,
    city: ship.city ?? null,
    state: ship.province ?? null,
    zip: ship.zip,
    country: ship.country || 'US',
    phone: ship.phone ?? order.customerPhone ?? null,
    email: order.customerEmail,
  };
  const who = await actorName(db, actor);
  const settings = await getLabelSettings(db, actor.accountId);
  const labelSize = input.label_size ?? settings.label_size;
  const offered = new Set(settings.services);
  const id = newId('shp');
  // The rows first (a rated shipment holds nothing: its items only keep a second shipment from buying the same
  // units once this one is bought), then the carrier, per parcel.
  await db.transaction(async (tx) => {
    await tx.insert(shipments).values({
      id,
      accountId: actor.accountId,
      orderId,
      locationId,
      status: 'rated',
      labelSize,
      fromAddress: from,
      toAddress: to,
      idempotencyKey: id,
      createdBy: who,
    });
    await tx.insert(shipmentPackages).values(
      input.packages.map((p, i) => ({
        id: newId('shpk'),
        accountId: actor.accountId,
        shipmentId: id,
        position: i + 1,
        weight: p.weight,
        length: p.length ?? null,
        width: p.width ?? null,
        height: p.height ?? null,
      })),
    );
    // Earlier unbought shipments of the same units are replaced by this one.
    const ids = chosen.map((a) => a.id);
    await tx.execute(sql`update ${shipments} set status = 'voided', updated_at = now()
      where account_id = ${actor.accountId} and order_id = ${orderId} and status = 'rated' and id <> ${id}
        and exists (select 1 from ${shipmentItems} si where si.shipment_id = ${shipments.id} and si.active = 1
          and si.allocation_id in ${ids})`);
    await tx.execute(sql`update ${shipmentItems} set active = 0
      where allocation_id in ${ids} and active = 1
        and shipment_id in (select id from ${shipments} where status = 'voided')`);
    await tx.insert(shipmentItems).values(
      chosen.map((a) => ({
        shipmentId: id,
        accountId: actor.accountId,
        allocationId: a.id,
        lineId: a.lineId,
        quantity: unitsOf(a),
      })),
    );
  });
  try {
    const perPackage = [];
    for (const [i, p] of input.packages.entries()) {
      const made = await client.createShipment({
        from: toCarrier(from),
        to: toCarrier(to),
        parcel: { weight: p.weight, length: p.length, width: p.width, height: p.height },
        reference: `${id}/${i + 1}`,
        labelSize,
      });
      if (made.rates.length === 0) {
        const why =
          made.messages?.map((m) => `${m.carrier}: ${m.message}`).join('; ') || 'no service ships this parcel';
        throw new DomainError('VALIDATION', `No rates for this shipment (${why}).`);
      }
      perPackage.push(offered.size ? made.rates.filter((r) => offered.has(`${r.carrier}:${r.service}`)) : made.rates);
      await db
        .update(shipmentPackages)
        .set({
          carrierShipmentId: made.id,
          rateIds: Object.fromEntries(made.rates.map((r) => [`${r.carrier}:${r.service}`, r.id])),
          updatedAt: new Date(),
        })
        .where(and(eq(shipmentPackages.shipmentId, id), eq(shipmentPackages.position, i + 1)));
    }
    const rates = combineRates(perPackage);
    if (rates.length === 0)
      throw new DomainError('VALIDATION', 'No carrier service ships every parcel of this shipment.');
    await db.update(shipments).set({ rates, updatedAt: new Date() }).where(eq(shipments.id, id));
  } catch (err) {
    // Nothing half-done: the shipment goes, and the carrier's reason is what the merchant reads.
    await db.delete(shipments).where(eq(shipments.id, id));
    if (err instanceof CarrierError) throw new DomainError('UPSTREAM_FAILED', SHIPMENT_MESSAGES.carrier(err.message));
    throw err;
  }
  return getShipment(db, actor.accountId, id);
}
