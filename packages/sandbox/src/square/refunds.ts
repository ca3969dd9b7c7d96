// Payment refunds: a refund of what is left on a payment (PENDING, on its order), and its settling.

import { squareId } from './ids.ts';
import { type Money, type Refund, SquareError } from './model.ts';
import type { Merchant } from './state.ts';

export function refund(
  m: Merchant,
  input: { paymentId: string; amount: Money; reason?: string; orderId?: string },
): Refund {
  const payment = m.payments.get(input.paymentId);
  if (!payment)
    throw new SquareError(
      404,
      'INVALID_REQUEST_ERROR',
      'NOT_FOUND',
      `Payment \`${input.paymentId}\` not found.`,
      'payment_id',
    );
  if (input.amount.currency !== payment.amount_money.currency) {
    throw new SquareError(
      400,
      'REFUND_ERROR',
      'CURRENCY_MISMATCH',
      'The refund currency must match the payment.',
      'amount_money.currency',
    );
  }
  const pending = [...m.refunds.values()]
    .filter((r) => r.payment_id === payment.id && (r.status === 'PENDING' || r.status === 'COMPLETED'))
    .reduce((sum, r) => sum + r.amount_money.amount, 0);
  if (
    !Number.isInteger(input.amount.amount) ||
    input.amount.amount < 1 ||
    pending + input.amount.amount > payment.amount_money.amount
  ) {
    throw new SquareError(
      400,
      'REFUND_ERROR',
      'REFUND_AMOUNT_INVALID',
      'The refund amount exceeds what is left to refund.',
      'amount_money.amount',
    );
  }
  const at = m.now();
  const refund: Refund = {
    id: `${payment.id}_${squareId.uid(m.rng)}`,
    status: 'PENDING',
    payment_id: payment.id,
    order_id: input.orderId ?? payment.order_id,
    location_id: input.orderId
      ? (m.orders.get(input.orderId)?.location_id ?? payment.location_id)
      : payment.location_id,
    amount_money: { ...input.amount },
    reason: input.reason ?? '',
    created_at: at,
    updated_at: at,
  };
  m.refunds.set(refund.id, refund);
  const order = m.orders.get(refund.order_id);
  if (order) {
    order.refunds.push({
      id: refund.id,
      location_id: refund.location_id,
      transaction_id: order.id,
      tender_id: payment.id,
      created_at: at,
      reason: refund.reason,
      amount_money: refund.amount_money,
      status: 'PENDING',
    });
    order.version += 1;
    order.updated_at = at;
  }
  m.emit({ type: 'refund.created', refund });
  if (order) m.emit({ type: 'order.updated', order });
  return refund;
}

/** Refunds settle shortly after they are created. */
export function settleRefund(m: Merchant, id: string) {
  const refund = m.refunds.get(id);
  if (refund?.status !== 'PENDING') return;
  refund.status = 'COMPLETED';
  refund.updated_at = m.now();
  const payment = m.payments.get(refund.payment_id);
  if (payment)
    payment.refunded_money = {
      amount: payment.refunded_money.amount + refund.amount_money.amount,
      currency: payment.refunded_money.currency,
    };
  const order = m.orders.get(refund.order_id);
  const line = order?.refunds.find((r) => r.id === id);
  if (order && line) {
    line.status = 'APPROVED';
    order.version += 1;
    order.updated_at = refund.updated_at as string;
  }
  m.emit({ type: 'refund.updated', refund });
  if (order) m.emit({ type: 'order.updated', order });
}
