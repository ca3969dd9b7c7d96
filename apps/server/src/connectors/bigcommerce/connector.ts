/**
 * The BigCommerce connector: one connected store, its name, locations and request budget here; each other part
 * of the Connector is a module of its own, called with the store: catalog.ts, inventory.ts, orders.ts,
 * fulfillment.ts, pickup.ts, returns.ts, webhook-subscriptions.ts. Requests go through client.ts (BcClient).
 */

import type { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import { inLane } from '../../lib/lanes.ts';
import { ProviderHttpError } from '../http.ts';
import type {
  Connector,
  FulfillmentInput,
  InventoryLevel,
  InventorySet,
  InventorySetResult,
  Page,
  ProductInput,
  ProviderOrder,
  ProviderProduct,
  ProviderReturn,
  RefundInput,
  RefundResult,
} from '../types.ts';
import { createProduct, listProducts, updateProduct } from './catalog.ts';
import { type BcClient, knowsWhatIsLeft, providerMessage } from './client.ts';
import { createFulfillment } from './fulfillment.ts';
import { getInventoryLevels, MAX_ADJUSTMENT_ITEMS, readInventory, setInventory } from './inventory.ts';
import { cancelOrder, getOrder, getOrders, listOrders } from './orders.ts';
import { updateBcPickup } from './pickup.ts';
import { listRefunds, readRefund, writeRefund } from './returns.ts';
import * as S from './schemas.ts';
import { subscribeWebhooks } from './webhook-subscriptions.ts';

export { MAX_ADJUSTMENT_ITEMS } from './inventory.ts';
export { toMinor } from './money.ts';
export { WEBHOOK_SCOPES } from './webhook-subscriptions.ts';

/** Is this failure one where BigCommerce may have done the work anyway (so a blind retry could repeat it)? */
const ambiguous = (err: unknown) => err instanceof ProviderHttpError && (err.status === null || err.status >= 500);

export class BigCommerceConnector implements Connector {
  readonly type = 'bigcommerce' as const;
  readonly maxInventoryBatch = MAX_ADJUSTMENT_ITEMS;
  readonly client: BcClient;
  /** @internal The store's brand names by id, read once (catalog.ts). */
  brands: Promise<Map<number, string>> | null = null;

  /** @internal The control panel's orders page (live stores only: the sandbox has no control panel for orders). */
  readonly adminOrdersUrl: string | null;

  constructor(client: BcClient, adminOrdersUrl: string | null = null) {
    this.client = client;
    this.adminOrdersUrl = adminOrdersUrl;
  }

  async getShop() {
    const store = await this.client.call(S.StoreInfo, 'GET', '/v2/store');
    return {
      externalId: this.client.storeHash,
      name: store.name,
      currency: store.currency,
      timezone: store.timezone?.name ?? null,
    };
  }

  async listLocations() {
    const locations: z.infer<typeof S.Location>[] = [];
    for (let page = 1; ; page++) {
      const res = await this.client.call(S.list(S.Location), 'GET', '/v3/inventory/locations', {
        query: { page, limit: 250 },
      });
      locations.push(...res.data);
      if (!res.meta?.pagination || page >= res.meta.pagination.total_pages) break;
    }
    return locations.map((l) => ({
      externalId: String(l.id),
      name: l.label,
      active: l.enabled,
      // A physical location ships; one shown on the storefront serves pickup (BigCommerce's BOPIS).
      ships: l.type_id === undefined ? undefined : l.type_id === 'PHYSICAL',
      pickup: l.storefront_visibility,
      address: {
        address1: l.address?.address1,
        city: l.address?.city,
        province: l.address?.state,
        zip: l.address?.zip,
        country: l.address?.country_code,
      },
    }));
  }

  listProducts(cursor: string | null): Promise<Page<ProviderProduct>> {
    return listProducts(this, cursor);
  }

  getInventoryLevels(input: { cursor: string | null; locationExternalIds?: string[] }) {
    return getInventoryLevels(this, input);
  }

  readBudget(): Promise<void> {
    const limiter = this.client.limiter;
    // Before any answer, what is left is a guess of one request: nothing to hold a read back for.
    if (!knowsWhatIsLeft(limiter)) return Promise.resolve();
    return inLane('background', () => limiter.whenAvailable(Math.floor(limiter.capacity / 3)));
  }

  /** Levels of given variants at given locations, 250 variants per request (inventory.ts). */
  readInventory(pairs: { inventoryItemId: string; locationExternalId: string }[]): Promise<InventoryLevel[]> {
    return readInventory(this, pairs);
  }

  /** Absolute adjustments in batches of 2000, without compare-and-set (inventory.ts). */
  setInventory(changes: InventorySet[]): Promise<InventorySetResult> {
    return setInventory(this, changes);
  }

  createProduct(input: ProductInput): Promise<ProviderProduct> {
    return createProduct(this, input);
  }

  updateProduct(externalId: string, input: Partial<ProductInput>): Promise<ProviderProduct> {
    return updateProduct(this, externalId, input);
  }

  /** Orders modified since `since` (or the cursor's), oldest change first, 250 a page (orders.ts). */
  listOrders(input: { cursor: string | null; since?: string }): Promise<Page<ProviderOrder>> {
    return listOrders(this, input);
  }

  getOrder(externalId: string): Promise<ProviderOrder | null> {
    return getOrder(this, externalId);
  }

  /** Orders read by id range, a request per 250 ids' span (orders.ts). */
  getOrders(externalIds: string[]): Promise<Map<string, ProviderOrder | null>> {
    return getOrders(this, externalIds);
  }

  /** Sets the order to Cancelled (status 5) (orders.ts). */
  cancelOrder(input: { externalId: string; reason?: string | null }): Promise<{ ok: true } | { unsupported: string }> {
    return cancelOrder(this, input);
  }

  /** A pickup order's progress, as its status: 8 Awaiting Pickup, then 10 Completed (pickup.ts). */
  async updatePickup(input: {
    orderExternalId: string;
    state: 'ready' | 'picked_up';
  }): Promise<{ ok: true } | { unsupported: string }> {
    return updateBcPickup(this, input);
  }

  /** A V2 shipment for the lines given, made once (fulfillment.ts). */
  createFulfillment(input: FulfillmentInput): Promise<{ externalId: string }> {
    return createFulfillment(this, input);
  }

  /** A refund through V3 payment actions, once per idempotency key (returns.ts). */
  async refund(input: RefundInput): Promise<RefundResult> {
    return writeRefund(this, input);
  }

  /** The store's refunds since a time (returns.ts): BigCommerce has no returns API. */
  async listReturns(input: { cursor: string | null; since?: string }): Promise<Page<ProviderReturn>> {
    return listRefunds(this, input);
  }

  async getReturn(externalId: string): Promise<ProviderReturn | null> {
    return readRefund(this, externalId);
  }

  /** Creates something that has no idempotency key: retried only after checking it was not created. */
  /** @internal */
  async createOnce<T>(create: () => Promise<T>, find: () => Promise<T | null>, refusal: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await create();
      } catch (err) {
        const throttled = err instanceof ProviderHttpError && err.status === 429;
        if ((!throttled && !ambiguous(err)) || attempt >= 5) throw this.refused(err, refusal);
        if (ambiguous(err)) {
          const existing = await find();
          if (existing) return existing;
        }
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt * Math.random()));
      }
    }
  }

  /** Hooks for every scope we process, pointing at `callbackUrl` (webhook-subscriptions.ts). */
  subscribeWebhooks(callbackUrl: string): Promise<void> {
    return subscribeWebhooks(this, callbackUrl);
  }

  /** @internal */
  refused(err: unknown, message: string): Error {
    if (err instanceof DomainError) return err;
    if (err instanceof ProviderHttpError) {
      const detail = providerMessage(err);
      if (err.status === 404) return new DomainError('NOT_FOUND', `${message}: ${detail}`, { cause: err });
      if (err.status === 409) return new DomainError('CONFLICT', `${message}: ${detail}`, { cause: err });
      if (err.status !== null && err.status >= 400 && err.status < 500 && err.status !== 429) {
        return new DomainError('VALIDATION', `${message}: ${detail}`, { cause: err });
      }
    }
    return new DomainError('UPSTREAM_FAILED', message, { cause: err });
  }
}
