import type { ProductDetail, ProductsFilter } from '@switchyard/contracts';
import { ProductsFilter as ProductsFilterSchema } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { shouldRetry } from '../../../../lib/query-client.ts';
import { type Trpc, useTRPC } from '../../../../lib/trpc.ts';
import { formatMoney } from '../../../subscription/-components/money.ts';

/** The list's filter with nothing chosen: what "Clear filters" goes back to. */
export const EMPTY_FILTER: ProductsFilter = ProductsFilterSchema.parse({});

/** Whether any filter differs from the empty one. */
export function hasFilters(filter: ProductsFilter): boolean {
  return (Object.keys(filter) as (keyof ProductsFilter)[]).some(
    (key) => key !== 'skuOrAlu' && key !== 'qtyOperation' && filter[key] !== EMPTY_FILTER[key],
  );
}

/** The account's currency (ISO 4217), in which prices are kept; undefined while it loads. */
export function useAccountCurrency() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.account.catalogs.queryOptions(), select: (data) => data.account.currency });
}

/** A price in minor units; plain with two decimals until the currency is known. */
export function formatPrice(minor: number | null, currency: string | undefined): string {
  if (minor === null) return '—';
  return currency ? formatMoney(minor, currency) : (minor / 100).toFixed(2);
}

/** Every location of the account, for the location filter and select (sorted by store id). */
export function useLocationOptions() {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.locations.list.queryOptions({ limit: 500 }),
    select: (data) =>
      data.results.map((location) => ({
        value: location.store_id,
        label: location.enabled ? `${location.name} (${location.store_id})` : `${location.name} (disabled)`,
      })),
  });
}

function isNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === 'NOT_FOUND';
}

/** One product; a product that is not there (or another account's) is not asked for again. */
export function productOptions(trpc: Trpc, id: string) {
  return {
    ...trpc.products.get.queryOptions({ id }),
    retry: (failureCount: number, error: unknown) => !isNotFound(error) && shouldRetry(failureCount, error),
  };
}

export function productDisplayName(product: Pick<ProductDetail, 'title'>): string {
  return product.title.trim() || 'Untitled product';
}
