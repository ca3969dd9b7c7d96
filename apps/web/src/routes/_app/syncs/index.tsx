import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Select,
  Skeleton,
  Stack,
  Switch,
  Table,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import {
  PAGE_SIZE_OPTIONS,
  SYNC_TYPE_LABELS,
  SYNC_TYPES,
  type SyncRun,
  SyncsSearch,
  type SyncType,
} from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { Pager } from '../../../components/pager.tsx';
import { QueryError } from '../../../components/query-error.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import {
  formatDuration,
  isLive,
  SYNC_TRIGGER_LABELS,
  SyncProgress,
  SyncStatusBadge,
  syncCountOptions,
  syncListOptions,
  syncTypesOptions,
} from './-components/sync-parts.tsx';

const SEARCH_DEFAULTS = SyncsSearch.parse({});

export const Route = createFileRoute('/_app/syncs/')({
  validateSearch: SyncsSearch,
  // Defaults stay out of the address, so the plain list is just /syncs.
  search: { middlewares: [stripSearchParams(SEARCH_DEFAULTS)] },
  loaderDeps: ({ search }) => search,
  loader: ({ context: { queryClient, trpc }, deps }) => {
    void queryClient.prefetchQuery(syncListOptions(trpc, deps));
  },
  component: SyncsPage,
});

function SyncsPage() {
  const trpc = useTRPC();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const filters = { type: search.type, has_errors: search.has_errors };
  const list = useQuery({ ...syncListOptions(trpc, search), placeholderData: keepPreviousData });
  const live = Boolean(list.data?.results.some(isLive));
  const count = useQuery({ ...syncCountOptions(trpc, filters, live), placeholderData: keepPreviousData });
  const types = useQuery(syncTypesOptions(trpc));
  const total = count.data?.total ?? list.data?.total ?? 0;
  const filtered = Boolean(search.type) || search.has_errors;

  const typeOptions = [
    { value: '', label: 'All types' },
    ...(types.data?.types ?? SYNC_TYPES.map((type) => ({ type, label: SYNC_TYPE_LABELS[type], count: 0 }))).map(
      (t) => ({
        value: t.type,
        label: types.data ? `${t.label} (${t.count.toLocaleString()})` : t.label,
      }),
    ),
  ];

  return (
    <Stack gap="lg" maw={1280}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Syncs</Title>
          <Text c="dimmed" size="sm">
            Every run between Switchyard and your channels (stock, products, orders, refunds and fulfillments): what it
            did, and what failed.
          </Text>
        </Stack>
        <Button
          variant="default"
          size="xs"
          onClick={() => {
            void list.refetch();
            void count.refetch();
            void types.refetch();
          }}
          loading={list.isFetching && !list.isPending}
          disabled={list.isPending}
        >
          Refresh
        </Button>
      </Group>

      <Group gap="md" align="flex-end" wrap="wrap">
        <Select
          label="Type"
          data={typeOptions}
          value={search.type ?? ''}
          allowDeselect={false}
          onChange={(value) =>
            void navigate({
              search: (prev) => ({ ...prev, type: (value || undefined) as SyncType | undefined, offset: 0 }),
            })
          }
          w={240}
        />
        <Switch
          label="Only with errors"
          checked={search.has_errors}
          onChange={(event) => {
            const checked = event.currentTarget.checked;
            void navigate({ search: (prev) => ({ ...prev, has_errors: checked, offset: 0 }) });
          }}
          mb={6}
        />
      </Group>

      {list.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading syncs">
          {[0, 1, 2, 3, 4].map((row) => (
            <Skeleton key={row} height={32} />
          ))}
        </Stack>
      ) : list.isError ? (
        <QueryError
          title="Could not load the syncs"
          error={list.error}
          onRetry={list.refetch}
          retrying={list.isFetching}
        />
      ) : list.data.results.length === 0 ? (
        <Alert variant="light" title={filtered ? 'No syncs match' : 'No syncs yet'}>
          {filtered
            ? 'No run matches these filters. Clear them to see every run.'
            : 'Runs show here as soon as Switchyard imports a catalog, publishes products or pushes stock to a channel.'}
        </Alert>
      ) : (
        <Stack gap="sm">
          <Table.ScrollContainer minWidth={1000}>
            <Table striped highlightOnHover aria-label="Syncs" aria-busy={list.isFetching}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col" aria-sort={search.sort === 'asc' ? 'ascending' : 'descending'}>
                    <UnstyledButton
                      onClick={() =>
                        void navigate({
                          search: (prev) => ({ ...prev, sort: prev.sort === 'asc' ? 'desc' : 'asc', offset: 0 }),
                        })
                      }
                      aria-label={search.sort === 'asc' ? 'Sort newest first' : 'Sort oldest first'}
                      fw={700}
                      fz="sm"
                    >
                      Id {search.sort === 'asc' ? '↑' : '↓'}
                    </UnstyledButton>
                  </Table.Th>
                  <Table.Th scope="col">Type</Table.Th>
                  <Table.Th scope="col">Channel</Table.Th>
                  <Table.Th scope="col">Status</Table.Th>
                  <Table.Th scope="col">Trigger</Table.Th>
                  <Table.Th scope="col">Processed</Table.Th>
                  <Table.Th scope="col">Failed</Table.Th>
                  <Table.Th scope="col">Started</Table.Th>
                  <Table.Th scope="col">Duration</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.results.map((run) => (
                  <SyncRow key={run.id} run={run} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Group justify="space-between" align="center" wrap="wrap" gap="sm">
            <Select
              label="Per page"
              data={PAGE_SIZE_OPTIONS.map(String)}
              value={String(search.limit)}
              allowDeselect={false}
              onChange={(value) => void navigate({ search: (prev) => ({ ...prev, limit: Number(value), offset: 0 }) })}
              w={110}
              size="xs"
            />
            <div style={{ flex: 1 }}>
              <Pager
                label="Syncs"
                total={total}
                limit={search.limit}
                offset={search.offset}
                onChange={(offset) => void navigate({ search: (prev) => ({ ...prev, offset }) })}
                disabled={list.isFetching && list.isPlaceholderData}
              />
            </div>
          </Group>
        </Stack>
      )}
      <DeadLetters />
    </Stack>
  );
}

function SyncRow({ run }: { run: SyncRun }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Anchor renderRoot={(props) => <Link {...props} to="/syncs/$id" params={{ id: String(run.id) }} />}>
          #{run.id}
        </Anchor>
      </Table.Td>
      <Table.Td>{run.typeLabel}</Table.Td>
      <Table.Td>
        {run.channel ? (
          run.channel.name
        ) : (
          <Text span c="dimmed" size="sm">
            All channels
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <SyncStatusBadge status={run.status} />
      </Table.Td>
      <Table.Td>{SYNC_TRIGGER_LABELS[run.trigger]}</Table.Td>
      <Table.Td>
        <SyncProgress run={run} />
      </Table.Td>
      <Table.Td>
        {run.failed > 0 ? (
          <Badge color="red" variant="light">
            {run.failed.toLocaleString()}
          </Badge>
        ) : (
          <Text span size="sm" c="dimmed">
            0
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {run.startedAt ? (
          <time dateTime={run.startedAt.toISOString()}>{formatDateTime(run.startedAt.toISOString())}</time>
        ) : (
          <Text span size="sm" c="dimmed">
            Not yet
          </Text>
        )}
      </Table.Td>
      <Table.Td>{formatDuration(run.durationMs)}</Table.Td>
    </Table.Tr>
  );
}

/** DESIGN §4: a job that failed every retry lands in a dead-letter queue, shown here. Hidden while there are none. */
function DeadLetters() {
  const trpc = useTRPC();
  const dead = useQuery(trpc.syncs.deadLetters.queryOptions({ limit: 25, offset: 0 }));
  if (!dead.data || dead.data.total === 0) return null;
  return (
    <Alert color="red" variant="light" title={`Jobs that failed every retry (${dead.data.total})`}>
      <Stack gap="xs">
        <Text size="sm">
          These background jobs stopped after their last retry. Fix the cause (often a channel to re-authorise), then
          retry the affected run or start the sync again from the channel.
        </Text>
        <Table aria-label="Failed jobs" fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Job</Table.Th>
              <Table.Th scope="col">Channel</Table.Th>
              <Table.Th scope="col">Last error</Table.Th>
              <Table.Th scope="col">Failed</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {dead.data.results.map((job) => (
              <Table.Tr key={job.id}>
                <Table.Td>{job.queue}</Table.Td>
                <Table.Td>{job.channel?.name ?? '—'}</Table.Td>
                <Table.Td>{job.error ?? 'No error was recorded'}</Table.Td>
                <Table.Td>
                  <time dateTime={job.createdAt.toISOString()}>{formatDateTime(job.createdAt.toISOString())}</time>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Alert>
  );
}
