// The picking list (issue 15, SPEC §2 store_id, sort, sort_by): the units still to pick at a store for the
// selected orders (or every order with work there), grouped by SKU with the orders each serves; as data for
// the screen and as a printable PDF with a Code 128 barcode per SKU (pdfkit, bwip-js drawn as vectors).
import {
  PICKING_LIST_MAX_ORDERS,
  type PickingList,
  type PickingListRow,
  PickingListSearch,
} from '@switchyard/contracts';
import bwipjs from 'bwip-js/node';
import { and, eq, inArray, sql } from 'drizzle-orm';
import PDFDocument from 'pdfkit';
import type { Db } from '../../db/client.ts';
import type { Actor } from '../../trpc/context.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';
import { variants } from '../products/products.tables.ts';
import { resolveStore, toStore } from './fulfillment.queue.ts';
import { fulfillmentSteps } from './fulfillment.tables.ts';
import { storeUnits } from './fulfillment.units.ts';

const SORTS = {
  id: sql`${orders.id}`,
  created_at: sql`${orders.createdAt}`,
  external_id: sql`${orders.externalId}`,
} as const;

export async function pickingList(db: Db, actor: Actor, raw: unknown): Promise<PickingList> {
  const input = PickingListSearch.parse(raw ?? {});
  const location = await resolveStore(db, actor, input.store_id);
  if (!location) return { store: null, rows: [], orders: 0, units: 0 };
  const ids = input.order_ids ? input.order_ids.split(',') : [];
  const dir = input.sort === 'asc' ? sql`asc` : sql`desc`;
  // The orders with units still to pick here (allocated, not flagged, not done), the selected ones or all.
  const picked = await db
    .select({ id: orders.id, number: orders.number })
    .from(orders)
    .where(
      and(
        eq(orders.accountId, actor.accountId),
        sql`${orders.status} in (0, 1, 2)`,
        sql`not ${orders.flagged}`,
        ids.length > 0 ? inArray(orders.id, ids) : undefined,
        sql`exists (select 1 from ${orderAllocations} a where a.order_id = ${orders.id} and a.location_id = ${location.id} and a.status = 1)`,
      ),
    )
    .orderBy(sql`${SORTS[input.sort_by]} ${dir}`, sql`${orders.id} ${dir}`)
    .limit(PICKING_LIST_MAX_ORDERS);
  if (picked.length === 0) return { store: toStore(location), rows: [], orders: 0, units: 0 };
  const numberOf = new Map(picked.map((o) => [o.id, o.number]));
  const rank = new Map(picked.map((o, i) => [o.id, i]));
  const units = await db
    .select({
      orderId: orderAllocations.orderId,
      quantity: orderAllocations.quantity,
      reserved: orderAllocations.reserved,
      status: orderAllocations.status,
      variantId: orderAllocations.variantId,
      locationId: orderAllocations.locationId,
      scanned: fulfillmentSteps.scanned,
      sku: orderLines.sku,
      title: orderLines.title,
      barcode: variants.barcode,
    })
    .from(orderAllocations)
    .innerJoin(orderLines, eq(orderLines.id, orderAllocations.lineId))
    .leftJoin(variants, eq(variants.id, orderAllocations.variantId))
    .leftJoin(fulfillmentSteps, eq(fulfillmentSteps.allocationId, orderAllocations.id))
    .where(
      and(
        eq(orderAllocations.accountId, actor.accountId),
        eq(orderAllocations.locationId, location.id),
        eq(orderAllocations.status, 1),
        inArray(
          orderAllocations.orderId,
          picked.map((o) => o.id),
        ),
      ),
    );
  const bySku = new Map<string, PickingListRow>();
  let total = 0;
  for (const u of units) {
    // Units still to ship and not yet scanned (after part of the line shipped, of the rest).
    const { toShip, scanned } = storeUnits(u, u.scanned);
    const left = toShip - scanned;
    if (left <= 0) continue;
    const sku = u.sku ?? u.title;
    let row = bySku.get(sku);
    if (!row) {
      row = { sku, barcode: u.barcode ?? null, title: u.title, units: 0, orders: [] };
      bySku.set(sku, row);
    }
    row.units += left;
    total += left;
    const served = row.orders.find((o) => o.id === u.orderId);
    if (served) served.units += left;
    else row.orders.push({ id: u.orderId, number: numberOf.get(u.orderId) ?? u.orderId, units: left });
  }
  const rows = [...bySku.values()].sort((a, b) => a.sku.localeCompare(b.sku));
  for (const r of rows) r.orders.sort((a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0));
  return {
    store: toStore(location),
    rows,
    orders: new Set(rows.flatMap((r) => r.orders.map((o) => o.id))).size,
    units: total,
  };
}

/**
 * A Code 128 barcode drawn as vector bars, `width` points wide at (x, y): bwip-js encodes (its bar and space
 * widths), pdfkit fills one rectangle per bar in a single path.
 */
function drawBarcode(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, height: number) {
  let sbs: number[];
  try {
    sbs = (bwipjs.raw('code128', text, '') as unknown as { sbs: number[] }[])[0]?.sbs ?? [];
  } catch {
    return; // a value Code 128 cannot carry: the SKU is printed beside it anyway
  }
  const modules = sbs.reduce((sum, w) => sum + w, 0);
  if (modules === 0) return;
  const unit = width / modules;
  let at = x;
  sbs.forEach((w, i) => {
    if (i % 2 === 0) doc.rect(at, y, w * unit, height);
    at += w * unit;
  });
  doc.fillColor('#000000').fill();
}

/** The picking list as a letter-size PDF: one block per SKU with its barcode, units and the orders it serves. */
export async function pickingListPdf(list: PickingList, now = new Date()): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'LETTER', margin: 40, info: { Title: 'Picking list' } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const left = doc.page.margins.left;
  const right = doc.page.width - doc.page.margins.right;
  const bottom = doc.page.height - doc.page.margins.bottom;
  doc.font('Helvetica-Bold').fontSize(18).text('Picking list', left, 40);
  doc
    .font('Helvetica')
    .fontSize(10)
    .text(
      `${list.store ? `${list.store.name} (store ${list.store.storeId})` : 'No store'} · ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC · ${list.orders} orders · ${list.units} units`,
    );
  doc.moveDown();
  if (list.rows.length === 0) doc.fontSize(12).text('Nothing to pick.');
  for (const row of list.rows) {
    const numbers = row.orders.map((o) => (o.units > 1 ? `${o.number} (${o.units})` : o.number)).join(', ');
    doc.font('Helvetica').fontSize(8);
    const ordersHeight = doc.heightOfString(numbers, { width: right - left - 200 });
    const height = Math.max(46, 30 + ordersHeight);
    if (doc.y + height > bottom) doc.addPage();
    const y = doc.y;
    drawBarcode(doc, row.barcode ?? row.sku, left, y, 150, 28);
    doc
      .font('Helvetica')
      .fontSize(7)
      .text(row.barcode ?? row.sku, left, y + 30, { width: 150, align: 'center' });
    doc
      .font('Helvetica-Bold')
      .fontSize(11)
      .text(`${row.units} × ${row.sku}`, left + 170, y, { width: right - left - 200 });
    doc
      .font('Helvetica')
      .fontSize(9)
      .text(row.title, left + 170, doc.y, { width: right - left - 200, lineBreak: false, ellipsis: true });
    doc
      .fontSize(8)
      .fillColor('#444444')
      .text(numbers, left + 170, doc.y + 2, { width: right - left - 200 });
    doc.fillColor('#000000');
    doc
      .rect(right - 14, y, 12, 12)
      .lineWidth(1)
      .stroke();
    doc.y = Math.max(doc.y, y + height) + 6;
    doc
      .moveTo(left, doc.y - 3)
      .lineTo(right, doc.y - 3)
      .lineWidth(0.3)
      .strokeColor('#bbbbbb')
      .stroke()
      .strokeColor('#000000');
  }
  doc.end();
  return done;
}
