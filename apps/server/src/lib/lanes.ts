import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which lane a provider call travels in. A shop's request budget (Shopify's query points, BigCommerce's
 * quota, Square's rate) is shared by everything we do with that shop. Work a merchant or a customer waits on
 * (an order webhook's read, a stock push, a fulfillment) is `foreground`; bulk reads that catch up
 * (reconciliation, catalog and order imports) are `background`, and give way to it while both wait for the
 * budget (connectors/http.ts TokenBucket). A job's lane is set by its definition (jobs/queue.ts).
 */
export type Lane = 'foreground' | 'background';

const lanes = new AsyncLocalStorage<Lane>();

/** Runs `fn` with every provider call it makes, however deep, in `lane`. */
export function inLane<T>(lane: Lane, fn: () => T): T {
  return lanes.run(lane, fn);
}

/** The lane of the work running now: foreground unless a caller said otherwise. */
export function currentLane(): Lane {
  return lanes.getStore() ?? 'foreground';
}
