import {
  ActionIcon,
  Alert,
  Anchor,
  Button,
  Group,
  Select,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import {
  type ChannelSummary,
  PAGE_SIZE_OPTIONS,
  RETURNS_SEARCH_DEBOUNCE_MS,
  type Return,
  ReturnsSearch,
} from '@switchyard/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { Fragment, useState } from 'react';
import { Pager } from '../../../components/pager.tsx';
import { QueryError } from '../../../components/query-error.tsx';
import { errorMessage } from '../../../lib/errors.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { useDebouncedText } from '../../../lib/use-debounced-text.ts';
import { formatMoney } from '../../subscription/-components/money.ts';
import { channelListOptions } from '../channels/-components/channel-api.ts';
import { refreshReturns, returnListOptions } from './-components/return-api.ts';
import { ReturnStatusBadge, receiptOf, storesOf } from './-components/return-parts.tsx';

// SPEC §2: external_id, limit and offset are in the address (defaults '', 25, 0).
export const Route = createFileRoute('/_app/returns/')({
  validateSearch: ReturnsSearch,
  loaderDeps: ({ search }) => search,
  loader: ({ context: { queryClient, trpc }, deps }) => {
    void queryClient.prefetchQuery(returnListOptions(trpc, deps));
  },
  component: ReturnsPage,
});

function ReturnsPage() {
  const trpc = useTRPC();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const list = useQuery({ ...returnListOptions(trpc, search), placeholderData: keepPreviousData });
  const channels = useQuery(channelListOptions(trpc));
  // A new search or page size starts again at the first page.
  const change = (next: Partial<ReturnsSearch>, replace = false) =>
    void navigate({ search: (prev) => ({ ...prev, offset: 0, ...next }), replace });
  const text = useDebouncedText(
    search.external_id,
    (next) => change({ external_id: next }, true),
    RETURNS_SEARCH_DEBOUNCE_MS,
  );
  const clear = () => {
    text.setText('');
    text.flush();
    change({ external_id: '' });
  };

  return (
    <Stack gap="lg" maw={1400}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Returns</Title>
          <Text c="dimmed" size="sm">
            Returns and refunds from every channel and from your orders. Restocked units go back on sale at their return
            store on every channel.
          </Text>
        </Stack>
        {/* The list is kept for 5 minutes (SPEC §9); Reload reads it again now. */}
        <Button
          variant="default"
          size="xs"
          onClick={() => void list.refetch()}
          loading={list.isFetching && !list.isPending}
          disabled={list.isPending}
        >
          Reload
        </Button>
      </Group>

      <Group align="flex-end" gap="md" wrap="wrap">
        {/* The search and its Clear button stay on one line: on a phone the field narrows rather than the button
            wrapping away from it. */}
        <Group align="flex-end" gap="xs" wrap="nowrap" miw={0}>
          <TextInput
            type="search"
            label="Search returns"
            placeholder="Search by order or return id"
            value={text.text}
            onChange={(event) => text.setText(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') text.flush();
            }}
            w={320}
            miw={0}
          />
          <Button
            variant="default"
            onClick={clear}
            disabled={!text.text && !search.external_id}
            style={{ flexShrink: 0 }}
          >
            Clear
          </Button>
        </Group>
        <Select
          label="Rows per page"
          data={[...new Set<number>([...PAGE_SIZE_OPTIONS, search.limit])].sort((x, y) => x - y).map(String)}
          value={String(search.limit)}
          onChange={(value) => change({ limit: Number(value ?? 25) })}
          allowDeselect={false}
          w={130}
        />
      </Group>

      {list.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading returns">
          {[0, 1, 2, 3].map((row) => (
            <Skeleton key={row} height={32} />
          ))}
        </Stack>
      ) : list.isError ? (
        <QueryError
          title="Could not load the returns"
          error={list.error}
          onRetry={list.refetch}
          retrying={list.isFetching}
        />
      ) : list.data.results.length === 0 ? (
        search.external_id ? (
          <Text c="dimmed">
            No return matches “{search.external_id}”.{' '}
            <Anchor component="button" type="button" onClick={clear}>
              Clear the search
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
            No returns yet. Returns made at your channels show here, and you can make one from an order’s page.
          </Text>
        )
      ) : (
        <Stack gap="sm">
          <Text size="sm" c="dimmed" aria-live="polite">
            {list.data.total === 1 ? '1 return' : `${list.data.total} returns`}
          </Text>
          <ReturnTable returns={list.data.results} busy={list.isFetching} channels={channels.data} />
          <Pager
            label="Returns"
            total={list.data.total}
            limit={search.limit}
            offset={search.offset}
            onChange={(offset) => void navigate({ search: (prev) => ({ ...prev, offset }) })}
            disabled={list.isFetching}
          />
        </Stack>
      )}
    </Stack>
  );
}

function channelName(channels: ChannelSummary[] | undefined, id: string | null): string {
  if (!id) return 'A removed channel';
  if (!channels) return '…';
  return channels.find((c) => c.id === id)?.name ?? 'A removed channel';
}

function ReturnTable({
  returns,
  busy,
  channels,
}: {
  returns: Return[];
  busy: boolean;
  channels: ChannelSummary[] | undefined;
}) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table aria-label="Returns" aria-busy={busy} verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col" w={44}>
              <VisuallyHidden>Details</VisuallyHidden>
            </Table.Th>
            <Table.Th scope="col">Id</Table.Th>
            <Table.Th scope="col">Channel</Table.Th>
            <Table.Th scope="col">Order</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">Store(s)</Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              Tax
            </Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              Adjustment
            </Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              Total
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {returns.map((ret) => {
            const expanded = open.has(ret.id);
            const money = (minor: number) => formatMoney(minor, ret.currency);
            return (
              <Fragment key={ret.id}>
                <Table.Tr>
                  <Table.Td>
                    <ActionIcon
                      variant="subtle"
                      aria-expanded={expanded}
                      aria-controls={`return-${ret.id}`}
                      aria-label={`${expanded ? 'Hide' : 'Show'} return ${ret.external_id}`}
                      onClick={() => toggle(ret.id)}
                    >
                      <Text span aria-hidden fz="sm">
                        {expanded ? '▾' : '▸'}
                      </Text>
                    </ActionIcon>
                  </Table.Td>
                  <Table.Td ff="monospace" fz="sm">
                    {ret.external_id}
                  </Table.Td>
                  <Table.Td>{channelName(channels, ret.channel_id)}</Table.Td>
                  <Table.Td>
                    {ret.order_id ? (
                      <Anchor
                        fz="sm"
                        renderRoot={(props) => <Link {...props} to="/orders/$id" params={{ id: ret.order_id ?? '' }} />}
                      >
                        {ret.order_number ?? ret.order_external_id}
                      </Anchor>
                    ) : (
                      <Text span fz="sm" c="dimmed">
                        {ret.order_external_id ?? '—'}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <ReturnStatusBadge status={ret.status} message={ret.message} />
                  </Table.Td>
                  <Table.Td>{storesOf(ret) || '—'}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{money(ret.tax)}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{money(ret.adjustment)}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{money(ret.total)}</Table.Td>
                </Table.Tr>
                {expanded ? (
                  <Table.Tr id={`return-${ret.id}`}>
                    <Table.Td />
                    <Table.Td colSpan={8}>
                      <ReturnDetails ret={ret} />
                    </Table.Td>
                  </Table.Tr>
                ) : null}
              </Fragment>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function ReturnDetails({ ret }: { ret: Return }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const retry = useMutation(
    trpc.returns.retry.mutationOptions({
      onSuccess: async (updated) => {
        notify.success(`Return ${updated.external_id}: ${updated.status === 'ERROR' ? 'still in error' : 'retried'}`);
        await refreshReturns(queryClient, trpc);
      },
    }),
  );
  const money = (minor: number) => formatMoney(minor, ret.currency);
  const retryable = ret.status === 'ERROR' || ret.refund_state === 'failed';
  return (
    <Stack gap="sm" py="xs">
      <Group gap="lg" wrap="wrap">
        <Text size="sm">
          <Text span fw={600}>
            Receipt:
          </Text>{' '}
          {receiptOf(ret)}
        </Text>
        <Text size="sm" c="dimmed">
          {ret.source === 'switchyard' ? 'Made here' : 'From the channel'} ·{' '}
          {formatDateTime((ret.provider_created_at ?? ret.created_at).toISOString())}
        </Text>
        {ret.refund_state ? (
          <Text size="sm" c={ret.refund_state === 'failed' ? 'red' : 'dimmed'}>
            Refund at the channel:{' '}
            {ret.refund_state === 'ok' ? 'done' : ret.refund_state === 'pending' ? 'being sent' : 'failed'}
          </Text>
        ) : null}
      </Group>
      {ret.message || ret.refund_message ? (
        <Alert
          color={ret.status === 'ERROR' || ret.refund_state === 'failed' ? 'red' : 'yellow'}
          variant="light"
          p="xs"
        >
          {[ret.message, ret.refund_message].filter(Boolean).join(' ')}
        </Alert>
      ) : null}
      <Table aria-label={`Items of return ${ret.external_id}`} withTableBorder fz="sm" maw={640}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">SKU</Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              Qty
            </Table.Th>
            <Table.Th scope="col">Return Store</Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              Total
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {ret.items.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={4}>
                <Text size="sm" c="dimmed">
                  No items: a refund of money only.
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            ret.items.map((item) => (
              <Table.Tr key={item.id}>
                <Table.Td ff="monospace">{item.sku ?? '—'}</Table.Td>
                <Table.Td style={{ textAlign: 'right' }}>
                  {item.qty}
                  {item.restock ? '' : ' (not restocked)'}
                </Table.Td>
                <Table.Td>{item.return_store_name ?? item.return_store ?? '—'}</Table.Td>
                <Table.Td style={{ textAlign: 'right' }}>{money(item.total)}</Table.Td>
              </Table.Tr>
            ))
          )}
        </Table.Tbody>
      </Table>
      {retryable ? (
        <Group gap="sm">
          <Button size="xs" onClick={() => retry.mutate({ id: ret.id })} loading={retry.isPending}>
            Retry
          </Button>
          {retry.isError ? (
            <Text size="sm" c="red" role="alert">
              {errorMessage(retry.error)}
            </Text>
          ) : null}
        </Group>
      ) : null}
    </Stack>
  );
}
