/**
 * What the Shopify connector's modules share: the connection they work through (ShopifyHost), the GraphQL
 * shapes every query meets (connections, user errors), our opaque cursors, and batches without duplicate pairs.
 */

import { DomainError } from '../../lib/errors.ts';
import type { ConnectorOptions, InventorySet } from '../types.ts';
import type { ShopifyClient } from './client.ts';

/** The connected shop the modules call through (the ShopifyConnector). */
export interface ShopifyHost {
  readonly client: ShopifyClient;
  readonly logger: ConnectorOptions['logger'];
  /** The shop admin's orders page; an order's page is this plus its numeric id. */
  readonly adminOrdersUrl: string;
}

export interface Connection<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export interface UserError {
  field?: string[] | null;
  message: string;
  code?: string | null;
}

export const encodeCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
export function decodeCursor<T>(cursor: string): T {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as T;
  } catch {
    throw new DomainError('VALIDATION', 'Invalid Shopify cursor');
  }
}

export const describe = (errors: UserError[]) => errors.map((e) => e.message).join('; ');

/**
 * Consecutive batches of at most `size`, never holding the same item/location (or SKU) twice, since
 * Shopify rejects a batch with a duplicate pair.
 */
export function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let keys = new Set<string>();
  for (const item of items) {
    const change = item as unknown as Partial<InventorySet>;
    const key = change.inventoryItemId ? `${change.inventoryItemId}|${change.locationExternalId}` : null;
    if (current.length >= size || (key !== null && keys.has(key))) {
      out.push(current);
      current = [];
      keys = new Set();
    }
    current.push(item);
    if (key !== null) keys.add(key);
  }
  if (current.length) out.push(current);
  return out;
}
