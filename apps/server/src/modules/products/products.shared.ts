// What the products files share: who acts, the parsed create/update inputs, the not-found answer, and
// queuing the publish of listings made here that wait to be created at their channel (catalog-publish.ts).
import type { ProductCreateInput, ProductUpdateInput } from '@switchyard/contracts';
import type { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { queueCatalogPublish } from './catalog-publish.ts';

/** Who acts: the account, and the user when there is one (recorded on the movements a change makes). */
export type Who = Pick<Actor, 'accountId'> & Partial<Pick<Actor, 'userId'>>;
export type ParsedCreate = z.output<typeof ProductCreateInput>;
export type ParsedUpdate = z.output<typeof ProductUpdateInput>;

export const NOT_FOUND = 'Product not found';

/**
 * Queues publishing of products whose listings on the channel wait without channel ids. A channel that
 * cannot publish now (not connected, catalog feature off, jobs not running) leaves them pending: the
 * product is saved either way, and the next publish or import picks them up.
 */
export async function publish(
  services: Services,
  accountId: string,
  channelId: string,
  productIds: string[],
  trigger: 'change' | 'manual',
) {
  try {
    await queueCatalogPublish(services, { accountId, channelId, trigger, productIds });
  } catch (err) {
    services.logger.warn(
      { channelId, err: err instanceof DomainError ? err.message : String(err) },
      'products: publish not queued; listings stay pending',
    );
  }
}
