import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { CHANNEL_LABELS, type SyncDetail } from '@switchyard/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, notFound, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { Pager } from '../../../components/pager.tsx';
import { QueryError } from '../../../components/query-error.tsx';
import { errorMessage } from '../../../lib/errors.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import {
  DETAIL_POLL_MS,
  formatDuration,
  isLive,
  SYNC_TRIGGER_LABELS,
  SyncProgress,
  SyncStatusBadge,
} from './-components/sync-parts.tsx';

const ITEMS_PAGE_SIZE = 25;

export const Route = createFileRoute('/_app/syncs/$id')({
  // A run is a positive whole number; anything else is a page that does not exist.
  beforeLoad: ({ params }) => {
    if (!/^[1-9]\d{0,14}$/.test(params.id)) throw notFound();
  },
  component: SyncPage,
});

function SyncPage() {
  const { id } = Route.useParams();
  // Another run starts at its first page of items.
  return <SyncRunView key={id} id={Number(id)} />;
}

function SyncRunView({ id }: { id: number }) {
  const trpc = useTRPC();
  const [offset, setOffset] = useState(0);
  const detail = useQuery({
    ...trpc.syncs.get.queryOptions({ id, items_limit: ITEMS_PAGE_SIZE, items_offset: offset }),
    placeholderData: keepPreviousData,
    // Live progress: read the run again every second while it runs.
    refetchInterval: (query) => (query.state.data && isLive(query.state.data.sync) ? DETAIL_POLL_MS : false),
  });

  return (
    <Stack gap="lg" maw={1100}>
      <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/syncs" />}>
        ← Syncs
      </Anchor>
      {detail.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the sync">
          <Skeleton height={36} width="40%" />
          <Skeleton height={90} />
          <Skeleton height={240} />
        </Stack>
      ) : detail.isError ? (
        <Stack gap="md">
          <Title order={1}>Sync #{id}</Title>
          <QueryError
            title="Could not load this sync"
            error={detail.error}
            onRetry={detail.refetch}
            retrying={detail.isFetching}
          />
        </Stack>
      ) : (
        <SyncBody detail={detail.data} offset={offset} onOffset={setOffset} busy={detail.isFetching} />
      )}
    </Stack>
  );
}

function SyncBody({
  detail,
  offset,
  onOffset,
  busy,
}: {
  detail: SyncDetail;
  offset: number;
  onOffset: (offset: number) => void;
  busy: boolean;
}) {
  const { sync: run, items } = detail;
  const live = isLive(run);
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Group gap="sm" align="center">
            <Title order={1}>
              {run.typeLabel} #{run.id}
            </Title>
            <SyncStatusBadge status={run.status} />
          </Group>
          <Text c="dimmed" size="sm">
            {run.channel ? `${run.channel.name} (${CHANNEL_LABELS[run.channel.type]})` : 'All channels'} ·{' '}
            {SYNC_TRIGGER_LABELS[run.trigger]}
            {run.retryOf ? (
              <>
                {' '}
                of{' '}
                <Anchor
                  renderRoot={(props) => <Link {...props} to="/syncs/$id" params={{ id: String(run.retryOf) }} />}
                >
                  #{run.retryOf}
                </Anchor>
              </>
            ) : null}
          </Text>
        </Stack>
        <RetryButton detail={detail} />
      </Group>

      {run.message ? (
        <Alert color={run.status === 'failed' ? 'red' : 'gray'} variant="light" title="Message">
          {run.message}
          {run.channel && run.message.includes('was not imported: map them') ? (
            <>
              {' '}
              <Anchor
                size="sm"
                renderRoot={(props) => (
                  <Link {...props} to="/channels/$id/channel-settings" params={{ id: run.channel?.id ?? '' }} />
                )}
              >
                Map the locations
              </Anchor>
            </>
          ) : null}
        </Alert>
      ) : null}

      <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }} spacing="sm">
        <Figure label="Total" value={run.total > 0 ? run.total.toLocaleString() : live ? 'Counting…' : '0'} />
        <Figure label="Processed" value={run.processed.toLocaleString()} />
        <Figure label="Succeeded" value={run.succeeded.toLocaleString()} />
        <Figure label="Failed" value={run.failed.toLocaleString()} tone={run.failed > 0 ? 'red' : undefined} />
        <Figure label="Started" value={run.startedAt ? formatDateTime(run.startedAt.toISOString()) : 'Not yet'} />
        <Figure label={run.finishedAt ? 'Took' : 'Running for'} value={formatDuration(run.durationMs)} />
      </SimpleGrid>
      {live ? (
        <Stack gap={4} aria-live="polite">
          <Text size="sm" fw={500}>
            {run.status === 'queued' ? 'Waiting to start…' : 'In progress'}
          </Text>
          <SyncProgress run={run} />
        </Stack>
      ) : null}

      {detail.retries.length > 0 ? (
        <Text size="sm">
          Retried by{' '}
          {detail.retries.map((retry, i) => (
            <span key={retry.id}>
              {i > 0 ? ', ' : ''}
              <Anchor renderRoot={(props) => <Link {...props} to="/syncs/$id" params={{ id: String(retry.id) }} />}>
                #{retry.id}
              </Anchor>
            </span>
          ))}
        </Text>
      ) : null}

      <Stack gap="sm">
        <Title order={2} size="h3">
          Failed items
        </Title>
        {items.total === 0 ? (
          <Text c="dimmed" size="sm">
            {live ? 'No item has failed so far.' : 'No item failed.'}
          </Text>
        ) : (
          <>
            <Table.ScrollContainer minWidth={720}>
              <Table striped aria-label="Failed items" aria-busy={busy}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Item</Table.Th>
                    <Table.Th scope="col">Error</Table.Th>
                    <Table.Th scope="col">State</Table.Th>
                    <Table.Th scope="col">When</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.results.map((item) => (
                    <Table.Tr key={item.id}>
                      <Table.Td>
                        <Text size="sm" ff="monospace">
                          {item.label}
                        </Text>
                      </Table.Td>
                      <Table.Td>{item.error}</Table.Td>
                      <Table.Td>
                        <Badge variant="light" color={item.status === 'failed' ? 'red' : 'gray'}>
                          {item.status === 'failed' ? 'Failed' : item.status === 'retried' ? 'Retried' : 'Succeeded'}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <time dateTime={item.createdAt.toISOString()}>
                          {formatDateTime(item.createdAt.toISOString())}
                        </time>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Pager
              label="Failed items"
              total={items.total}
              limit={ITEMS_PAGE_SIZE}
              offset={offset}
              onChange={onOffset}
              disabled={busy}
            />
          </>
        )}
      </Stack>
    </Stack>
  );
}

function Figure({ label, value, tone }: { label: string; value: string; tone?: string }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} c={tone}>
        {value}
      </Text>
    </Card>
  );
}

function RetryButton({ detail }: { detail: SyncDetail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const run = detail.sync;
  const retry = useMutation({
    ...trpc.syncs.retry.mutationOptions(),
    onSuccess: async ({ id }) => {
      notify.success('Retry started', { description: `Sync #${id} retries the failed items of #${run.id}.` });
      await queryClient.invalidateQueries(trpc.syncs.pathFilter());
      await navigate({ to: '/syncs/$id', params: { id: String(id) } });
    },
    onError: (error) => notify.error('Could not retry', { description: errorMessage(error) }),
  });
  // An import that failed as a whole has no items: retrying runs it again.
  const wholeImport = (run.type === 'catalog_import' || run.type === 'order_import') && run.status === 'failed';
  const canRetry = !isLive(run) && (detail.retryable > 0 || wholeImport);
  if (!canRetry) return null;
  return (
    <Button onClick={() => retry.mutate({ id: run.id })} loading={retry.isPending}>
      {detail.retryable > 0 ? `Retry failed items (${detail.retryable.toLocaleString()})` : 'Retry failed items'}
    </Button>
  );
}
