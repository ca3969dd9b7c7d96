import {
  Anchor,
  Badge,
  Button,
  CloseButton,
  Group,
  Select,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import {
  type Buffer,
  BuffersSearch,
  type ChannelSummary,
  PAGE_SIZE_OPTIONS,
  SEARCH_DEBOUNCE_MS,
} from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { Pager } from '../../../components/pager.tsx';
import { QueryError } from '../../../components/query-error.tsx';
import { useTRPC } from '../../../lib/trpc.ts';
import { channelListOptions } from '../channels/-components/channel-api.ts';
import { allLocationsOptions, BUFFER_SEARCH_DEFAULTS, bufferListOptions } from './-components/buffer-api.ts';

type SortKey = BuffersSearch['sort_by'];

// SPEC §2: the list's state (sort, filters, page) is in the address, with these defaults left out.
export const Route = createFileRoute('/_app/dynamic-buffers/')({
  validateSearch: BuffersSearch,
  search: { middlewares: [stripSearchParams(BUFFER_SEARCH_DEFAULTS)] },
  loaderDeps: ({ search }) => search,
  // Started, not awaited: the page shows its loading state at once, and a failing list its error after one
  // round of retries (an awaited prefetch held the page for its retries, then the list's query retried again).
  loader: ({ context, deps }) => {
    void context.queryClient.prefetchQuery(bufferListOptions(context.trpc, deps));
  },
  component: BuffersPage,
});

function BuffersPage() {
  const trpc = useTRPC();
  const navigate = useNavigate({ from: Route.fullPath });
  const search = Route.useSearch();
  const buffers = useQuery({ ...bufferListOptions(trpc, search), placeholderData: keepPreviousData });
  const channels = useQuery(channelListOptions(trpc));
  const locations = useQuery(allLocationsOptions(trpc));
  const [text, setText] = useState(search.search ?? '');

  type Change = Partial<Omit<BuffersSearch, 'search' | 'sku' | 'channel_id'>> & {
    search?: string | undefined;
    sku?: string | undefined;
    channel_id?: string | undefined;
  };
  // Any change of filter, sort or page size starts again at the first page.
  const change = (next: Change, replace = false) =>
    void navigate({ search: (prev) => ({ ...prev, offset: 0, ...next }), replace });
  const applySearch = useDebouncedCallback(
    (value: string) => change({ search: value.trim() || undefined }, true),
    SEARCH_DEBOUNCE_MS,
  );
  const filtered = Boolean(search.search || search.sku || search.channel_id);
  const clearFilters = () => {
    setText('');
    void navigate({
      search: (prev) => ({ ...prev, offset: 0, search: undefined, sku: undefined, channel_id: undefined }),
    });
  };

  return (
    <Stack gap="lg" maw={1200}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Dynamic buffers</Title>
          <Text c="dimmed" size="sm">
            Stock of a SKU at a location that one channel is never offered: a safety margin against overselling.
          </Text>
        </Stack>
        <Group gap="sm">
          {/* The list is kept for 5 minutes (SPEC §9); this reads it again now. */}
          <Button
            variant="default"
            onClick={() => void buffers.refetch()}
            loading={buffers.isFetching && !buffers.isPending}
            disabled={buffers.isPending}
          >
            Refresh
          </Button>
          <Button renderRoot={(props) => <Link {...props} to="/dynamic-buffers/create" />}>Add buffer</Button>
        </Group>
      </Group>

      <Group align="flex-end" gap="md" wrap="wrap">
        <TextInput
          type="search"
          label="Search buffers"
          placeholder="SKU or location"
          value={text}
          onChange={(event) => {
            setText(event.currentTarget.value);
            applySearch(event.currentTarget.value);
          }}
          w={280}
        />
        <Select
          label="Channel"
          placeholder="All channels"
          data={(channels.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
          value={search.channel_id ?? null}
          onChange={(value) => change({ channel_id: value ?? undefined })}
          clearable
          searchable
          nothingFoundMessage="No channel matches"
          w={240}
        />
        <Select
          label="Rows per page"
          // A size typed into the address (the API takes 1 to 200) is offered too, so the select names it.
          data={[...new Set<number>([...PAGE_SIZE_OPTIONS, search.limit])].sort((x, y) => x - y).map(String)}
          value={String(search.limit)}
          onChange={(value) => change({ limit: Number(value ?? BUFFER_SEARCH_DEFAULTS.limit) })}
          allowDeselect={false}
          w={130}
        />
        {search.sku ? (
          <Badge
            size="lg"
            variant="light"
            rightSection={
              <CloseButton
                size="xs"
                aria-label={`Stop showing only SKU ${search.sku}`}
                onClick={() => change({ sku: undefined })}
              />
            }
          >
            SKU {search.sku}
          </Badge>
        ) : null}
      </Group>

      {buffers.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading buffers">
          {[0, 1, 2, 3].map((row) => (
            <Skeleton key={row} height={32} />
          ))}
        </Stack>
      ) : buffers.isError ? (
        <QueryError
          title="Could not load your buffers"
          error={buffers.error}
          onRetry={buffers.refetch}
          retrying={buffers.isFetching}
        />
      ) : buffers.data.results.length === 0 ? (
        filtered ? (
          <Text c="dimmed">
            No buffer matches these filters.{' '}
            <Anchor component="button" type="button" onClick={clearFilters}>
              Clear the filters
            </Anchor>
          </Text>
        ) : search.offset > 0 ? (
          <Text c="dimmed">
            This page is empty.{' '}
            <Anchor component="button" type="button" onClick={() => change({})}>
              Back to the first page
            </Anchor>
          </Text>
        ) : (
          <Text c="dimmed">
            No buffers yet. Add one to hold stock back from a channel, say for walk-in customers at a store.
          </Text>
        )
      ) : (
        <Stack gap="sm">
          <Text size="sm" c="dimmed" aria-live="polite">
            {buffers.data.total === 1 ? '1 buffer' : `${buffers.data.total} buffers`}
          </Text>
          <BufferTable
            buffers={buffers.data.results}
            busy={buffers.isFetching}
            search={search}
            onSort={(sort_by, sort) => change({ sort_by, sort })}
            channelName={(id) => channelName(channels.data, id)}
            locationName={(storeId) => locations.data?.results.find((l) => l.store_id === storeId)?.name}
          />
          <Pager
            label="Buffers"
            total={buffers.data.total}
            limit={search.limit}
            offset={search.offset}
            onChange={(offset) => void navigate({ search: (prev) => ({ ...prev, offset }) })}
            disabled={buffers.isFetching}
          />
        </Stack>
      )}
    </Stack>
  );
}

function channelName(channels: ChannelSummary[] | undefined, id: string): string {
  if (!channels) return '…';
  return channels.find((c) => c.id === id)?.name ?? 'Unknown channel';
}

interface BufferTableProps {
  buffers: Buffer[];
  busy: boolean;
  search: BuffersSearch;
  onSort: (column: SortKey, order: 'asc' | 'desc') => void;
  channelName: (id: string) => string;
  locationName: (storeId: string) => string | undefined;
}

function BufferTable({ buffers, busy, search, onSort, channelName, locationName }: BufferTableProps) {
  const navigate = useNavigate();
  const open = (id: number) => void navigate({ to: '/dynamic-buffers/$id', params: { id: String(id) } });
  const header = (column: SortKey, label: string, align: 'left' | 'right' = 'left') => {
    const active = search.sort_by === column;
    // A first click sorts ascending; another click on the same column turns it round.
    const next = active && search.sort === 'asc' ? 'desc' : 'asc';
    return (
      <Table.Th
        scope="col"
        aria-sort={active ? (search.sort === 'asc' ? 'ascending' : 'descending') : 'none'}
        style={{ textAlign: align }}
      >
        <UnstyledButton onClick={() => onSort(column, next)} fw={700} fz="sm">
          {label}{' '}
          <Text span c={active ? undefined : 'dimmed'} aria-hidden>
            {active ? (search.sort === 'asc' ? '▲' : '▼') : '↕'}
          </Text>
        </UnstyledButton>
      </Table.Th>
    );
  };
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover aria-label="Buffers" aria-busy={busy} verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            {header('sku', 'SKU')}
            {header('location_external_id', 'Location')}
            {header('channel_id', 'Channel')}
            {header('qty', 'Qty', 'right')}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {buffers.map((buffer) => {
            const name = locationName(buffer.location_external_id);
            return (
              // The whole row opens the buffer; the SKU is its link for the keyboard.
              <Table.Tr key={buffer.id} onClick={() => open(buffer.id)} style={{ cursor: 'pointer' }}>
                <Table.Td>
                  <Anchor
                    fw={500}
                    ff="monospace"
                    onClick={(event) => event.stopPropagation()}
                    renderRoot={(props) => (
                      <Link {...props} to="/dynamic-buffers/$id" params={{ id: String(buffer.id) }} />
                    )}
                  >
                    {buffer.sku}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  {name ? `${name} ` : null}
                  <Text span size="sm" c="dimmed" ff="monospace">
                    {name ? `(${buffer.location_external_id})` : buffer.location_external_id}
                  </Text>
                </Table.Td>
                <Table.Td>{channelName(buffer.channel_id)}</Table.Td>
                <Table.Td style={{ textAlign: 'right' }}>{buffer.qty}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
