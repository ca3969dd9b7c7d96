// Manual stock changes from the product screen (issue 6): an adjustment by a number of units or a count
// that sets on hand, each one ledger movement (inventory/ledger.ts) in its own transaction, then a push of
// the channels whose available number may have moved.
import type { StockAdjustInput, StockChangeResult, StockCountInput } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { applyMovements, markDirty } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locationById } from '../locations/locations.read.ts';
import { variants } from '../products/products.tables.ts';

type Who = Pick<Actor, 'accountId' | 'userId'>;

/** NOT_FOUND unless both the variant and the location are the caller's. */
async function assertOwnLevel(db: Db, accountId: string, variantId: string, locationId: string) {
  const [variant] = await db
    .select({ id: variants.id })
    .from(variants)
    .where(and(eq(variants.accountId, accountId), eq(variants.id, variantId)));
  if (!variant) throw new DomainError('NOT_FOUND', 'Variant not found');
  const location = await locationById(db, accountId, locationId);
  if (!location) throw new DomainError('NOT_FOUND', 'Location not found');
}

/**
 * The client's request id keys the movement: a double click, a retried request or a second tab sending
 * the same id applies once (the ledger's idempotency key is unique per account).
 */
const idempotencyKey = (requestId: string) => `manual:${requestId}`;

async function change(
  services: Services,
  actor: Who,
  input: { variantId: string; locationId: string; note?: string; requestId: string },
  movement: { delta: number } | { setTo: number },
  reason: 'adjustment' | 'count',
): Promise<StockChangeResult> {
  const { db } = services;
  await assertOwnLevel(db, actor.accountId, input.variantId, input.locationId);
  const { result, channelIds } = await db.transaction(async (tx) => {
    const [applied] = await applyMovements(tx, actor.accountId, [
      {
        variantId: input.variantId,
        locationId: input.locationId,
        ...movement,
        reason,
        source: 'manual',
        reference: input.note || null,
        idempotencyKey: idempotencyKey(input.requestId),
        userId: actor.userId,
      },
    ]);
    if (!applied) throw new Error('applyMovements answered nothing');
    // applyMovements marked the pairs dirty; marking again answers the channels to push.
    const channelIds = applied.applied ? await markDirty(tx, actor.accountId, [input.variantId]) : [];
    return { result: applied, channelIds };
  });
  await schedulePush(services, channelIds);
  return {
    variantId: result.variantId,
    locationId: result.locationId,
    onHand: result.onHand,
    reserved: result.reserved,
    delta: result.delta,
    applied: result.applied,
  };
}

/** `inventory.adjust`: on hand changes by `delta` (reason adjustment, source manual). */
export function adjustStock(services: Services, actor: Who, input: z.output<typeof StockAdjustInput>) {
  return change(services, actor, input, { delta: input.delta }, 'adjustment');
}

/** `inventory.count`: on hand is set to `count` (reason count); the movement holds the difference. */
export function countStock(services: Services, actor: Who, input: z.output<typeof StockCountInput>) {
  return change(services, actor, input, { setTo: input.count }, 'count');
}
