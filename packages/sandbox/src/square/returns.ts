// Itemized returns at the register: a return order naming the sale and its lines, the goods restocked at the
// store and the money refunded to the sale's card.

import { squareId } from './ids.ts';
import { invalid, type Json, type Money, type Order, type Refund, SquareError } from './model.ts';
import type { Merchant } from './state.ts';

/**
 * A return at the register (Square POS "Issue refund" → items): a new COMPLETED order at the store where
 * the customer brings the goods, whose `returns[]` names the sale (`source_order_id`) and each returned
 * line (`source_line_item_uid`, quantity, money), with `return_amounts`; the money goes back to the sale's
 * card as a PaymentRefund whose order is the return order. Square POS restocks returned items at that store
 * (NONE → IN_STOCK, so inventory.count.updated). Events: order.created, refund.created, order.updated, then
 * refund.updated once the refund settles.
 */
export function returnAtRegister(
  m: Merchant,
  input: {
    saleOrderId: string;
    locationId?: string;
    lines: { sku?: string; lineUid?: string; quantity: number }[];
    reason?: string;
  },
): { order: Order; refund: Refund | null } {
  const sale = m.orders.get(input.saleOrderId);
  if (!sale)
    throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${input.saleOrderId}\` not found.`);
  if (sale.state !== 'COMPLETED' && !m.stockMoved.has(sale.id))
    throw invalid('BAD_REQUEST', 'Only a paid sale can be returned.', 'source_order_id');
  const location = input.locationId ? m.location(input.locationId) : m.location(sale.location_id);
  if (!location)
    throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${input.locationId} not found.`);
  const returned = new Map<string, number>();
  for (const o of m.orders.values())
    for (const r of (o.returns as Json[] | undefined) ?? [])
      if (r.source_order_id === sale.id)
        for (const l of (r.return_line_items as Json[]) ?? [])
          returned.set(
            String(l.source_line_item_uid),
            (returned.get(String(l.source_line_item_uid)) ?? 0) + Number(l.quantity),
          );
  const money = (amount: number) => ({ amount, currency: m.currency });
  const lines = input.lines.map((l) => {
    const line = sale.line_items.find((x) =>
      l.lineUid
        ? x.uid === l.lineUid
        : (m.objects.get(String(x.catalog_object_id))?.item_variation_data as Json | undefined)?.sku === l.sku,
    );
    if (!line) throw invalid('INVALID_VALUE', `The sale has no line ${l.lineUid ?? l.sku}.`, 'return_line_items');
    const left = Number(line.quantity) - (returned.get(String(line.uid)) ?? 0);
    if (!Number.isInteger(l.quantity) || l.quantity < 1 || l.quantity > left)
      throw invalid('INVALID_VALUE', `Only ${left} of ${String(line.name)} can be returned.`, 'return_line_items');
    returned.set(String(line.uid), (returned.get(String(line.uid)) ?? 0) + l.quantity);
    const share = (key: string) =>
      Math.round((Number((line[key] as Money | undefined)?.amount ?? 0) * l.quantity) / Number(line.quantity));
    const gross = share('gross_sales_money');
    const tax = share('total_tax_money');
    const discount = share('total_discount_money');
    return {
      uid: squareId.uid(m.rng),
      source_line_item_uid: line.uid,
      name: line.name,
      quantity: String(l.quantity),
      catalog_object_id: line.catalog_object_id,
      catalog_version: line.catalog_version,
      variation_name: line.variation_name,
      item_type: 'ITEM',
      base_price_money: line.base_price_money,
      variation_total_price_money: money(gross),
      gross_return_money: money(gross),
      total_tax_money: money(tax),
      total_discount_money: money(discount),
      total_money: money(gross - discount + tax),
    };
  });
  const sum = (key: string) => lines.reduce((s, l) => s + (l[key as keyof typeof l] as Money).amount, 0);
  const amounts = {
    total_money: money(sum('total_money')),
    tax_money: money(sum('total_tax_money')),
    discount_money: money(sum('total_discount_money')),
    tip_money: money(0),
    service_charge_money: money(0),
  };
  const at = m.now();
  const order: Order = {
    id: squareId.order(m.rng),
    location_id: location.id,
    source: { name: 'Square Point of Sale' },
    state: 'COMPLETED',
    version: 1,
    created_at: at,
    updated_at: at,
    closed_at: at,
    line_items: [],
    returns: [
      { uid: squareId.uid(m.rng), source_order_id: sale.id, return_line_items: lines, return_amounts: amounts },
    ],
    return_amounts: amounts,
    fulfillments: [],
    tenders: [],
    refunds: [],
    total_money: money(0),
    total_tax_money: money(0),
    total_discount_money: money(0),
    net_amounts: {
      total_money: money(-amounts.total_money.amount),
      tax_money: money(-amounts.tax_money.amount),
      discount_money: money(-amounts.discount_money.amount),
      tip_money: money(0),
      service_charge_money: money(0),
    },
  };
  m.orders.set(order.id, order);
  m.emit({ type: 'order.created', order });
  const changes = lines
    .filter((l) => typeof l.catalog_object_id === 'string' && m.objects.has(l.catalog_object_id))
    .map((l) => ({
      type: 'ADJUSTMENT',
      adjustment: {
        catalog_object_id: l.catalog_object_id,
        location_id: location.id,
        from_state: 'NONE',
        to_state: 'IN_STOCK',
        quantity: l.quantity,
        occurred_at: at,
      },
    }));
  if (changes.length > 0) m.applyChanges(changes, false);
  const payment = sale.tenders.map((t) => m.payments.get(String(t.id))).find((p) => p !== undefined);
  const refund =
    payment && amounts.total_money.amount > 0
      ? m.refund({
          paymentId: payment.id,
          amount: amounts.total_money,
          reason: input.reason ?? 'Returned goods',
          orderId: order.id,
        })
      : null;
  return { order, refund };
}
