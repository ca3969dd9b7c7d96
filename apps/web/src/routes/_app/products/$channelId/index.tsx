import {
  Alert,
  Anchor,
  Avatar,
  Button,
  Checkbox,
  Group,
  Select,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import {
  CHANNEL_LABELS,
  PAGE_SIZE_OPTIONS,
  PRODUCT_STATUS_LABELS,
  type ProductListItem,
  type ProductsFilter,
  ProductsSearch,
  unmappedStockText,
} from '@switchyard/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { Pager } from '../../../../components/pager.tsx';
import { QueryError } from '../../../../components/query-error.tsx';
import { formatDateTime } from '../../../../lib/format.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { channelListOptions } from '../../channels/-components/channel-api.ts';
import { useMappingStatus } from '../../locations/-components/channel-locations-offer.tsx';
import { ColumnsMenu, useProductColumns } from '../-components/columns-menu.tsx';
import { DeleteProductsDialog } from '../-components/delete-products-dialog.tsx';
import { EMPTY_FILTER, formatPrice, hasFilters, useAccountCurrency } from '../-components/product-api.ts';
import { PRODUCT_COLUMNS, type ProductColumnKey } from '../-components/product-columns.ts';
import { ProductFilters } from '../-components/product-filters.tsx';
import { SyncStatusBadge } from '../-components/sync-status-badge.tsx';

const SEARCH_DEFAULTS = ProductsSearch.parse({});

export const Route = createFileRoute('/_app/products/$channelId/')({
  validateSearch: ProductsSearch,
  // Defaults stay out of the address, so a plain list is just /products/{channelId}.
  search: { middlewares: [stripSearchParams(SEARCH_DEFAULTS)] },
  component: ProductsPage,
});

const plural = (count: number, one: string, many: string) => `${count.toLocaleString()} ${count === 1 ? one : many}`;

function ProductsPage() {
  const { channelId } = Route.useParams();
  // A new channel starts with nothing selected.
  return <ProductsList key={channelId} channelId={channelId} />;
}

function ProductsList({ channelId }: { channelId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const channels = useQuery(channelListOptions(trpc));
  const channel = channels.data?.find((c) => c.id === channelId);
  const currency = useAccountCurrency().data;
  const columns = useProductColumns(channelId);
  const products = useQuery({
    ...trpc.products.list.queryOptions({ channelId, ...search }),
    placeholderData: keepPreviousData,
  });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirmingDelete, setConfirmingDelete] = useState(false);

  const setFilter = (patch: Partial<ProductsFilter>) =>
    void navigate({ search: (prev) => ({ ...prev, currentPage: 1, filter: { ...prev.filter, ...patch } }) });
  const clearFilters = () => void navigate({ search: (prev) => ({ ...prev, currentPage: 1, filter: EMPTY_FILTER }) });

  const afterBulk = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.products.list.pathFilter()),
      queryClient.invalidateQueries(trpc.products.get.pathFilter()),
      queryClient.invalidateQueries(trpc.products.brands.pathFilter()),
    ]);
  const bulk = useMutation(trpc.products.bulk.mutationOptions({ onSuccess: afterBulk }));
  const ids = [...selected];
  const syncSelected = () =>
    bulk.mutate(
      { action: 'sync', ids, channelId },
      {
        onSuccess: (result) =>
          notify.success(
            `${plural(result.count, 'product', 'products')} queued to sync${channel ? ` to ${channel.name}` : ''}.`,
          ),
        onError: (error) => notify.error(`Could not sync: ${error.message}`),
      },
    );
  const deleteSelected = () =>
    bulk.mutate(
      { action: 'delete', ids },
      {
        onSuccess: (result) => {
          notify.success(`${plural(result.count, 'product was', 'products were')} deleted.`);
          setSelected(new Set());
          setConfirmingDelete(false);
        },
      },
    );

  const rows = products.data?.results ?? [];
  const pageProductIds = [...new Set(rows.map((row) => row.productId))];
  const allOnPage = pageProductIds.length > 0 && pageProductIds.every((id) => selected.has(id));
  const someOnPage = pageProductIds.some((id) => selected.has(id));
  const toggle = (productIds: string[], on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const id of productIds) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });

  const switchable = (channels.data ?? []).filter((c) => c.status !== 'pending');
  const filtered = hasFilters(search.filter);
  const total = products.data?.pagination.total ?? 0;

  return (
    <Stack gap="lg" maw={1400}>
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Products</Title>
          <Text c="dimmed" size="sm">
            {channel
              ? `Your catalog as it stands on ${channel.name} (${CHANNEL_LABELS[channel.type]}): every variant, its stock and its sync status there.`
              : 'Your catalog on this channel: every variant, its stock and its sync status.'}
          </Text>
        </Stack>
        <Group gap="sm" align="flex-end" wrap="wrap">
          <Select
            label="Channel"
            data={switchable.map((c) => ({ value: c.id, label: `${c.name} · ${CHANNEL_LABELS[c.type]}` }))}
            value={channel ? channelId : null}
            placeholder={channels.isPending ? 'Loading…' : 'Choose a channel'}
            allowDeselect={false}
            onChange={(next) => {
              if (next && next !== channelId)
                void navigate({
                  to: '/products/$channelId',
                  params: { channelId: next },
                  search: (prev) => ({ ...prev, currentPage: 1 }),
                });
            }}
            w={260}
          />
          <ColumnsMenu visible={columns.visible} setColumns={columns.setColumns} pending={columns.pending} />
          <Button renderRoot={(props) => <Link {...props} to="/products/$channelId/create" params={{ channelId }} />}>
            Add product
          </Button>
        </Group>
      </Group>
      {channels.isSuccess && !channel ? (
        <Alert color="orange" variant="light" title="Unknown channel" role="status">
          This channel is not one of yours any more. Choose another one above, or{' '}
          <Anchor renderRoot={(props) => <Link {...props} to="/channels" />}>see your channels</Anchor>.
        </Alert>
      ) : null}
      <UnmappedStock channelId={channelId} />
      <ProductFilters filter={search.filter} onChange={setFilter} onClear={clearFilters} />
      {selected.size > 0 ? (
        <Group
          gap="sm"
          wrap="wrap"
          p="xs"
          role="toolbar"
          aria-label="Bulk actions"
          style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-md)' }}
        >
          <Text size="sm" fw={500} aria-live="polite">
            {plural(selected.size, 'product', 'products')} selected
          </Text>
          <Button
            size="xs"
            variant="light"
            onClick={syncSelected}
            loading={bulk.isPending && bulk.variables?.action === 'sync'}
          >
            Sync selected
          </Button>
          <Button size="xs" variant="light" color="red" onClick={() => setConfirmingDelete(true)}>
            Delete selected
          </Button>
          <Button size="xs" variant="subtle" color="gray" onClick={() => setSelected(new Set())}>
            Clear selection
          </Button>
        </Group>
      ) : null}
      {products.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading products">
          {[0, 1, 2, 3, 4].map((row) => (
            <Skeleton key={row} height={40} />
          ))}
        </Stack>
      ) : products.isError ? (
        <QueryError
          title="Could not load the products"
          error={products.error}
          onRetry={products.refetch}
          retrying={products.isFetching}
        />
      ) : rows.length === 0 ? (
        filtered ? (
          <Alert variant="light" title="No products match these filters">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">Try fewer filters, or clear them to see the whole catalog.</Text>
              <Button size="xs" variant="default" onClick={clearFilters}>
                Clear filters
              </Button>
            </Stack>
          </Alert>
        ) : (
          <Alert variant="light" title="No products yet">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">
                Import this channel’s catalog from its settings, or add a product here; it is then published to the
                channel.
              </Text>
              <Group gap="xs">
                <Button
                  size="xs"
                  renderRoot={(props) => <Link {...props} to="/products/$channelId/create" params={{ channelId }} />}
                >
                  Add product
                </Button>
                <Button
                  size="xs"
                  variant="default"
                  renderRoot={(props) => (
                    <Link {...props} to="/channels/$id/product-settings" params={{ id: channelId }} />
                  )}
                >
                  Product settings
                </Button>
              </Group>
            </Stack>
          </Alert>
        )
      ) : (
        <Stack gap="sm">
          <Table.ScrollContainer minWidth={900}>
            <Table striped highlightOnHover aria-label="Products" aria-busy={products.isFetching} verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col" w={40}>
                    <Checkbox
                      aria-label="Select every product on this page"
                      checked={allOnPage}
                      indeterminate={someOnPage && !allOnPage}
                      onChange={(event) => toggle(pageProductIds, event.currentTarget.checked)}
                    />
                  </Table.Th>
                  {PRODUCT_COLUMNS.filter((column) => columns.visible.has(column.key)).map((column) => (
                    <Table.Th key={column.key} scope="col">
                      {column.key === 'image' ? (
                        <VisuallyHidden>{column.label}</VisuallyHidden>
                      ) : (column.key === 'onHand' || column.key === 'reserved') && search.filter.location ? (
                        // With a location chosen the numbers are that location's, not the sum.
                        `${column.label} at ${search.filter.location}`
                      ) : (
                        column.label
                      )}
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row) => (
                  <ProductRow
                    key={row.id}
                    row={row}
                    channelId={channelId}
                    columns={columns.visible}
                    currency={currency}
                    selected={selected.has(row.productId)}
                    onSelect={(on) => toggle([row.productId], on)}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Group justify="space-between" gap="sm" wrap="wrap">
            <Group gap="sm">
              <Text size="sm" c="dimmed" aria-live="polite">
                {plural(total, 'variant', 'variants')}
              </Text>
              <Select
                aria-label="Rows per page"
                size="xs"
                w={90}
                data={PAGE_SIZE_OPTIONS.map(String)}
                value={String(search.sizePerPage)}
                allowDeselect={false}
                onChange={(value) =>
                  void navigate({ search: (prev) => ({ ...prev, currentPage: 1, sizePerPage: Number(value) }) })
                }
              />
              <Text size="sm" c="dimmed">
                per page
              </Text>
            </Group>
            <Pager
              label="Products"
              total={total}
              limit={search.sizePerPage}
              offset={(search.currentPage - 1) * search.sizePerPage}
              onChange={(offset) =>
                void navigate({
                  search: (prev) => ({ ...prev, currentPage: Math.floor(offset / search.sizePerPage) + 1 }),
                })
              }
              disabled={products.isFetching}
            />
          </Group>
        </Stack>
      )}
      <DeleteProductsDialog
        opened={confirmingDelete}
        subject={plural(selected.size, 'product', 'products')}
        count={selected.size}
        pending={bulk.isPending}
        error={bulk.variables?.action === 'delete' ? bulk.error : null}
        onConfirm={deleteSelected}
        onClose={() => {
          bulk.reset();
          setConfirmingDelete(false);
        }}
      />
    </Stack>
  );
}

function ProductRow({
  row,
  channelId,
  columns,
  currency,
  selected,
  onSelect,
}: {
  row: ProductListItem;
  channelId: string;
  columns: Set<ProductColumnKey>;
  currency: string | undefined;
  selected: boolean;
  onSelect: (on: boolean) => void;
}) {
  const cell = (key: ProductColumnKey) => {
    switch (key) {
      case 'image':
        return (
          <Avatar src={row.image} alt="" radius="sm" size={36}>
            {row.title.slice(0, 1).toUpperCase()}
          </Avatar>
        );
      case 'title':
        return (
          <Stack gap={0}>
            <Anchor
              fw={500}
              renderRoot={(props) => (
                <Link {...props} to="/products/$channelId/$id" params={{ channelId, id: row.productId }} />
              )}
            >
              {row.title || 'Untitled product'}
            </Anchor>
            {row.variantTitle ? (
              <Text size="xs" c="dimmed">
                {row.variantTitle}
              </Text>
            ) : null}
          </Stack>
        );
      case 'sku':
        return (
          <Text size="sm" ff="monospace">
            {row.sku}
          </Text>
        );
      case 'alu':
        return row.alu ?? '—';
      case 'barcode':
        return row.barcode ?? '—';
      case 'brand':
        return row.brand ?? '—';
      case 'productType':
        return row.productType ?? '—';
      case 'status':
        return PRODUCT_STATUS_LABELS[row.status];
      case 'price':
        return formatPrice(row.price, currency);
      case 'compareAtPrice':
        return formatPrice(row.compareAtPrice, currency);
      case 'onHand':
        return row.onHand.toLocaleString();
      case 'reserved':
        return row.reserved.toLocaleString();
      case 'syncStatus':
        return <SyncStatusBadge code={row.syncStatusCode} error={row.listing?.lastError} />;
      case 'updatedAt':
        return <time dateTime={row.updatedAt.toISOString()}>{formatDateTime(row.updatedAt.toISOString())}</time>;
    }
  };
  return (
    <Table.Tr bg={selected ? 'var(--mantine-primary-color-light)' : undefined}>
      <Table.Td>
        <Checkbox
          aria-label={`Select ${row.title} (${row.sku})`}
          checked={selected}
          onChange={(event) => onSelect(event.currentTarget.checked)}
        />
      </Table.Td>
      {PRODUCT_COLUMNS.filter((column) => columns.has(column.key)).map((column) => (
        <Table.Td key={column.key}>{cell(column.key)}</Table.Td>
      ))}
    </Table.Tr>
  );
}

const MAP_THEM = 'map them';

/**
 * Issue 19: channel locations that feed the channel but map to none of ours had their stock left out of
 * the import; the screen says so, with a link to the mapping (where a channel with none mapped offers to
 * create the locations).
 */
function UnmappedStock({ channelId }: { channelId: string }) {
  const mapping = useMappingStatus();
  const status = mapping.data?.find((s) => s.channelId === channelId);
  if (!status || status.unmapped === 0) return null;
  const text = unmappedStockText(status.unmapped, CHANNEL_LABELS[status.type]);
  return (
    <Alert color="yellow" variant="light" role="status">
      {text.slice(0, -MAP_THEM.length)}
      <Anchor
        size="sm"
        renderRoot={(props) => <Link {...props} to="/channels/$id/channel-settings" params={{ id: channelId }} />}
      >
        {MAP_THEM}
      </Anchor>
    </Alert>
  );
}
