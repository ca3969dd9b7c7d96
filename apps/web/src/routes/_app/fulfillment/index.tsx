import {
  Alert,
  Anchor,
  Badge,
  Button,
  Checkbox,
  Group,
  Select,
  Skeleton,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  FULFILLMENT_SCOPE_LABELS,
  FULFILLMENT_SCOPES,
  type FulfillmentCounts,
  type FulfillmentQueueItem,
  FulfillmentSearch,
  PAGE_SIZE_OPTIONS,
} from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { Pager } from '../../../components/pager.tsx';
import { QueryError } from '../../../components/query-error.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { useDebouncedText } from '../../../lib/use-debounced-text.ts';
import { FlaggedBadge, FulfillmentBadge, OrderStatusBadge } from '../orders/-components/order-parts.tsx';
import { FULFILLMENT_SEARCH_DEFAULTS, queueCountOptions, queueOptions } from './-components/fulfillment-api.ts';

// SPEC §2: the queue's state (store, scope, filters, sort, page) is in the address, defaults left out.
export const Route = createFileRoute('/_app/fulfillment/')({
  validateSearch: FulfillmentSearch,
  search: { middlewares: [stripSearchParams(FULFILLMENT_SEARCH_DEFAULTS)] },
  loaderDeps: ({ search }) => search,
  loader: ({ context: { queryClient, trpc }, deps }) => {
    void queryClient.prefetchQuery(queueOptions(trpc, deps));
  },
  component: FulfillmentPage,
});

type Filter = FulfillmentSearch['filter'];

function FulfillmentPage() {
  const trpc = useTRPC();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const stores = useQuery(trpc.fulfillment.stores.queryOptions());
  const list = useQuery({ ...queueOptions(trpc, search), placeholderData: keepPreviousData });
  const counts = useQuery({ ...queueCountOptions(trpc, search), placeholderData: keepPreviousData });
  const [selected, setSelected] = useState<string[]>([]);

  // Any change of filter, sort or page size starts again at the first page.
  const change = (next: Partial<Omit<FulfillmentSearch, 'filter'>> & { filter?: Partial<Filter> }, replace = false) => {
    setSelected([]);
    void navigate({
      search: (prev) => ({ ...prev, offset: 0, ...next, filter: { ...prev.filter, ...next.filter } }),
      replace,
    });
  };
  const skus = useDebouncedText(search.filter.skus ?? '', (v) => change({ filter: { skus: v || undefined } }, true));
  const ids = useDebouncedText(search.filter.order_ids ?? '', (v) =>
    change({ filter: { order_ids: v || undefined } }, true),
  );
  const storeId = list.data?.store?.storeId ?? search.filter.store_id ?? stores.data?.defaultStoreId ?? undefined;
  const storeOptions = (stores.data?.stores ?? []).map((s) => ({
    value: s.storeId,
    label: `${s.name} (${s.storeId})${s.enabled ? '' : ' · disabled'}`,
  }));
  const storeLabel = storeOptions.find((option) => option.value === storeId)?.label;
  const pickingSearch = { store_id: storeId, ...(selected.length > 0 ? { order_ids: selected.join(',') } : {}) };

  return (
    <Stack gap="lg" maw={1400}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Fulfillment</Title>
          <Text c="dimmed" size="sm">
            The work of one store: orders to pick, pack and ship or hand over. New orders show up on their own.
          </Text>
        </Stack>
        <Group gap="sm" align="flex-end">
          <Select
            label="Store"
            placeholder={stores.isPending ? 'Loading stores…' : 'Choose a store'}
            data={storeOptions}
            value={storeId ?? null}
            allowDeselect={false}
            onChange={(value) => value && change({ filter: { store_id: value } })}
            // As wide as the chosen store's name (plus the chevron), within bounds; a name longer still is cut, so
            // the whole of it is in the title.
            title={storeLabel}
            w={storeLabel ? `calc(${storeLabel.length}ch + 3.5rem)` : 260}
            miw={220}
            maw="min(460px, 100%)"
          />
          <Button
            variant="default"
            renderRoot={(props) => <Link {...props} to="/fulfillment/picking-list" search={pickingSearch} />}
            disabled={!storeId}
          >
            {selected.length > 0 ? `Picking list (${selected.length})` : 'Picking list'}
          </Button>
        </Group>
      </Group>

      <ScopeTabs scope={search.filter.scope} counts={counts.data} onChange={(scope) => change({ filter: { scope } })} />

      <Group align="flex-end" gap="md" wrap="wrap">
        <TextInput
          label="SKUs"
          placeholder="TEE-1, CAP-2"
          value={skus.text}
          onChange={(event) => skus.setText(event.currentTarget.value)}
          onKeyDown={(event) => event.key === 'Enter' && skus.flush()}
          w={240}
        />
        <TextInput
          label="Orders"
          placeholder="#1001, #1002"
          value={ids.text}
          onChange={(event) => ids.setText(event.currentTarget.value)}
          onKeyDown={(event) => event.key === 'Enter' && ids.flush()}
          w={240}
        />
        <Select
          label="Sort by"
          data={[
            // By arrival here, not by when it was placed (an imported order arrives late): "Newest first" said
            // otherwise, and read against "Order: Ascending" too.
            { value: 'id', label: 'Arrival' },
            { value: 'placed_at', label: 'Placed' },
            { value: 'number', label: 'Order number' },
          ]}
          value={search.sort}
          allowDeselect={false}
          onChange={(value) => value && change({ sort: value as FulfillmentSearch['sort'] })}
          w={170}
        />
        <Select
          label="Direction"
          data={[
            { value: 'desc', label: 'Descending' },
            { value: 'asc', label: 'Ascending' },
          ]}
          value={search.order}
          allowDeselect={false}
          onChange={(value) => value && change({ order: value as 'asc' | 'desc' })}
          w={140}
        />
      </Group>

      {list.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading the queue">
          {[0, 1, 2, 3, 4].map((row) => (
            <Skeleton key={row} height={32} />
          ))}
        </Stack>
      ) : list.isError ? (
        <QueryError
          title="Could not load the queue"
          error={list.error}
          onRetry={list.refetch}
          retrying={list.isFetching}
        />
      ) : !list.data.store ? (
        <Alert variant="light" title="No stores yet">
          The queue is per store.{' '}
          <Anchor renderRoot={(props) => <Link {...props} to="/locations/create" />}>Add a location</Anchor> first.
        </Alert>
      ) : list.data.results.length === 0 ? (
        <Alert variant="light" title={`Nothing here at ${list.data.store.name}`}>
          {search.offset > 0
            ? 'This page is empty.'
            : search.filter.skus || search.filter.order_ids
              ? 'No order of this tab matches the filter.'
              : 'No order is in this tab right now. New ones appear here on their own.'}
        </Alert>
      ) : (
        <Stack gap="sm">
          <QueueTable
            items={list.data.results}
            search={search}
            busy={list.isFetching}
            selected={selected}
            onSelect={setSelected}
          />
          <Group justify="space-between" align="center" wrap="wrap" gap="sm">
            <Select
              label="Per page"
              data={[...new Set<number>([...PAGE_SIZE_OPTIONS, search.limit])].sort((x, y) => x - y).map(String)}
              value={String(search.limit)}
              allowDeselect={false}
              onChange={(value) => change({ limit: Number(value ?? 25) })}
              w={110}
              size="xs"
            />
            <div style={{ flex: 1 }}>
              <Pager
                label="Queue"
                total={list.data.total}
                totalIsLowerBound={list.data.totalCapped}
                limit={search.limit}
                offset={search.offset}
                onChange={(offset) => void navigate({ search: (prev) => ({ ...prev, offset }) })}
                disabled={list.isFetching && list.isPlaceholderData}
              />
            </div>
          </Group>
        </Stack>
      )}
    </Stack>
  );
}

function ScopeTabs({
  scope,
  counts,
  onChange,
}: {
  scope: Filter['scope'];
  counts: FulfillmentCounts | undefined;
  onChange: (scope: Filter['scope']) => void;
}) {
  return (
    <Tabs
      value={scope || 'all'}
      onChange={(value) => value && onChange(value === 'all' ? '' : (value as Filter['scope']))}
    >
      <Tabs.List aria-label="Fulfillment scope">
        {[...FULFILLMENT_SCOPES, 'all' as const].map((value) => {
          const count = counts?.counts[value];
          return (
            <Tabs.Tab
              key={value}
              value={value}
              rightSection={
                count === undefined ? null : (
                  <Badge
                    size="sm"
                    variant={value === 'flagged' && count > 0 ? 'filled' : 'light'}
                    color={value === 'flagged' && count > 0 ? 'red' : count > 0 ? 'blue' : 'gray'}
                  >
                    {count.toLocaleString()}
                    {counts?.capped.includes(value) ? '+' : ''}
                  </Badge>
                )
              }
            >
              {value === 'all' ? 'All' : FULFILLMENT_SCOPE_LABELS[value]}
            </Tabs.Tab>
          );
        })}
      </Tabs.List>
    </Tabs>
  );
}

function QueueTable({
  items,
  search,
  busy,
  selected,
  onSelect,
}: {
  items: FulfillmentQueueItem[];
  search: FulfillmentSearch;
  busy: boolean;
  selected: string[];
  onSelect: (ids: string[]) => void;
}) {
  const all = items.length > 0 && items.every((i) => selected.includes(i.id));
  return (
    <Table.ScrollContainer minWidth={1000}>
      <Table striped highlightOnHover aria-label="Fulfillment queue" aria-busy={busy} verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col" w={40}>
              <Checkbox
                aria-label="Select every order on this page"
                checked={all}
                indeterminate={!all && selected.length > 0}
                onChange={() => onSelect(all ? [] : items.map((i) => i.id))}
              />
            </Table.Th>
            <Table.Th scope="col">Order</Table.Th>
            <Table.Th scope="col">Placed</Table.Th>
            <Table.Th scope="col">Customer</Table.Th>
            <Table.Th scope="col">Fulfillment</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">SKUs</Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              Picked
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item) => (
            <Table.Tr
              key={item.id}
              // Someone is waiting in the car park: the row is tinted so it stands out from in-store pickups.
              bg={item.fulfillmentType === 'curbside_pickup' ? 'var(--mantine-color-orange-light)' : undefined}
              data-curbside={item.fulfillmentType === 'curbside_pickup' || undefined}
            >
              <Table.Td>
                <Checkbox
                  aria-label={`Select order ${item.number}`}
                  checked={selected.includes(item.id)}
                  onChange={(event) =>
                    onSelect(
                      event.currentTarget.checked ? [...selected, item.id] : selected.filter((id) => id !== item.id),
                    )
                  }
                />
              </Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Anchor
                    fw={600}
                    renderRoot={(props) => (
                      <Link
                        {...props}
                        to="/fulfillment/$id"
                        params={{ id: item.id }}
                        search={{ store_id: search.filter.store_id, queue: search }}
                      />
                    )}
                  >
                    {item.number}
                  </Anchor>
                  {item.flagged ? <FlaggedBadge /> : null}
                  {item.packed ? (
                    <Badge size="sm" color="teal" variant="light">
                      Packed
                    </Badge>
                  ) : null}
                </Group>
              </Table.Td>
              <Table.Td>
                <time dateTime={item.placedAt.toISOString()}>{formatDateTime(item.placedAt.toISOString())}</time>
              </Table.Td>
              <Table.Td>{item.customerName ?? 'Guest'}</Table.Td>
              <Table.Td>
                <FulfillmentBadge type={item.fulfillmentType} />
              </Table.Td>
              <Table.Td>
                <OrderStatusBadge status={item.status} />
              </Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={2}>
                  {item.skus.join(', ') || '—'}
                </Text>
              </Table.Td>
              <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
                {item.pickedUnits} / {item.units}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
