import type { ProviderReturn, ProviderReturnItem } from '../types.ts';
import type { SquareOrder } from './mapping.ts';

/**
 * Square's returns and refunds as ProviderReturns.
 *
 * - An itemized return (Square POS "Issue refund" → items, at the register) is an order of its own: its
 *   `returns[]` names the sale (`source_order_id`) and each line given back (`source_line_item_uid`), and
 *   the card refund (a PaymentRefund whose `order_id` is the return order) hangs off it. Square POS puts the
 *   returned items back IN_STOCK at the store where the return was made, so its lines are `channelRestocked`
 *   there. (Square's Orders API does not say whether the seller turned restocking off for a line; the
 *   register restocks by default, and that is what is read.) The return order's id is the return's id.
 * - A refund without items (RefundPayment through the API, or a money-only refund in Square) is a return of
 *   money alone: no items, its id is the PaymentRefund's.
 */

interface Money {
  amount?: number;
  currency?: string;
}

export interface PaymentRefund {
  id: string;
  status?: 'PENDING' | 'COMPLETED' | 'REJECTED' | 'FAILED' | string;
  payment_id?: string;
  order_id?: string;
  location_id?: string;
  amount_money: Money;
  reason?: string;
  created_at?: string;
  updated_at?: string;
}

export interface SquareReturnOrder extends SquareOrder {
  returns?: {
    uid?: string;
    source_order_id?: string;
    return_line_items?: {
      uid?: string;
      source_line_item_uid?: string;
      catalog_object_id?: string;
      quantity?: string;
      total_money?: Money;
      total_tax_money?: Money;
    }[];
    return_amounts?: { total_money?: Money; tax_money?: Money };
  }[];
  return_amounts?: { total_money?: Money; tax_money?: Money };
  refunds?: { id: string; status?: string; tender_id?: string; amount_money?: Money }[];
}

/** An order made only of returns (no items sold): not a sale to import, but a return. */
export const isReturnOrder = (o: SquareReturnOrder) =>
  (o.returns?.length ?? 0) > 0 && (o.line_items?.length ?? 0) === 0;

export function mapReturnOrder(o: SquareReturnOrder, skus: Map<string, string | null>): ProviderReturn | null {
  const returns = o.returns ?? [];
  if (returns.length === 0) return null;
  const items: ProviderReturnItem[] = returns.flatMap((r) =>
    (r.return_line_items ?? []).map((l) => ({
      lineExternalId: l.source_line_item_uid ?? null,
      sku: l.catalog_object_id ? (skus.get(l.catalog_object_id) ?? null) : null,
      variantExternalId: l.catalog_object_id ?? null,
      quantity: Math.trunc(Number(l.quantity ?? 0)),
      total: l.total_money?.amount ?? 0,
      restock: true,
      locationExternalId: o.location_id,
      channelRestocked: !!l.catalog_object_id,
    })),
  );
  const amounts = o.return_amounts ?? returns[0]?.return_amounts;
  const total = amounts?.total_money?.amount ?? items.reduce((s, i) => s + i.total, 0);
  const refund = (o.refunds ?? []).find((r) => r.tender_id);
  return {
    externalId: o.id,
    orderExternalId: returns[0]?.source_order_id ?? null,
    createdAt: o.created_at,
    updatedAt: o.updated_at,
    status: o.state === 'CANCELED' ? 'failed' : o.state === 'COMPLETED' ? 'completed' : 'pending',
    // The receipt the customer brought back: the sale's payment's receipt number.
    receiptNumber: refund?.tender_id ? refund.tender_id.slice(0, 4) : null,
    billName: null,
    currency: amounts?.total_money?.currency ?? o.total_money?.currency ?? 'USD',
    tax: amounts?.tax_money?.amount ?? 0,
    adjustment: total - items.reduce((s, i) => s + i.total, 0),
    total,
    items,
  };
}

export function mapRefund(r: PaymentRefund): ProviderReturn {
  const at = r.created_at ?? r.updated_at ?? new Date().toISOString();
  const total = r.amount_money.amount ?? 0;
  return {
    externalId: r.id,
    orderExternalId: r.order_id ?? null,
    createdAt: at,
    updatedAt: r.updated_at ?? at,
    status: r.status === 'COMPLETED' ? 'completed' : r.status === 'PENDING' ? 'pending' : 'failed',
    receiptNumber: r.payment_id ? r.payment_id.slice(0, 4) : null,
    billName: null,
    currency: r.amount_money.currency ?? 'USD',
    tax: 0,
    adjustment: total,
    total,
    items: [],
  };
}

/** refund.created / refund.updated name the PaymentRefund (with its order); read it with getReturn. */
export function refundOfEvent(topic: string, payload: unknown): PaymentRefund | null {
  if (topic !== 'refund.created' && topic !== 'refund.updated') return null;
  const data = (payload as { data?: { id?: unknown; object?: { refund?: PaymentRefund } } } | null)?.data;
  const refund = data?.object?.refund;
  return refund && typeof refund.id === 'string' && refund.id !== '' ? refund : null;
}
