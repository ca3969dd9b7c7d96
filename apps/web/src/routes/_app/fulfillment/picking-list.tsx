import { Alert, Anchor, Button, Group, Select, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { PickingListSearch } from '@switchyard/contracts';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { QueryError } from '../../../components/query-error.tsx';
import { errorMessage } from '../../../lib/errors.ts';
import { countOf } from '../../../lib/format.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { fetchPickingListPdf, pickingListOptions } from './-components/fulfillment-api.ts';

const DEFAULTS = PickingListSearch.parse({});

// SPEC §2: store_id, sort (asc|desc, default desc), sort_by (id, created_at, external_id; default id).
export const Route = createFileRoute('/_app/fulfillment/picking-list')({
  validateSearch: PickingListSearch,
  search: { middlewares: [stripSearchParams({ sort: DEFAULTS.sort, sort_by: DEFAULTS.sort_by })] },
  component: PickingListPage,
});

function PickingListPage() {
  const trpc = useTRPC();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const list = useQuery({ ...pickingListOptions(trpc, search), placeholderData: keepPreviousData });
  const print = useMutation({
    mutationFn: () => fetchPickingListPdf(search),
    onSuccess: (blob) => {
      const url = URL.createObjectURL(blob);
      // The browser's PDF viewer prints it (a blob of this origin: nothing to protect the opener from); a blocked
      // pop-up falls back to a download.
      const opened = window.open(url, '_blank');
      if (!opened) {
        const link = document.createElement('a');
        link.href = url;
        link.download = `picking-list-${new Date().toISOString().slice(0, 10)}.pdf`;
        link.click();
      }
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    },
    onError: (e) => notify.error(errorMessage(e)),
  });
  const change = (next: Partial<PickingListSearch>) => void navigate({ search: (prev) => ({ ...prev, ...next }) });
  return (
    <Stack gap="lg" maw={1200}>
      <Anchor
        size="sm"
        renderRoot={(props) => (
          <Link
            {...props}
            to="/fulfillment"
            search={search.store_id ? { filter: { scope: 'toShip' as const, store_id: search.store_id } } : undefined}
          />
        )}
      >
        ← Fulfillment
      </Anchor>
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Stack gap={4}>
          <Title order={1}>Picking list</Title>
          <Text c="dimmed" size="sm">
            {list.data?.store ? `${list.data.store.name}: ` : ''}
            {search.order_ids ? 'the selected orders' : 'every order with units still to pick'}, by SKU.
          </Text>
        </Stack>
        <Group gap="sm" align="flex-end">
          <Select
            label="Orders by"
            data={[
              { value: 'id', label: 'Arrival' },
              { value: 'created_at', label: 'Created' },
              { value: 'external_id', label: 'Channel id' },
            ]}
            value={search.sort_by}
            allowDeselect={false}
            onChange={(v) => v && change({ sort_by: v as PickingListSearch['sort_by'] })}
            w={150}
          />
          <Select
            label="Direction"
            data={[
              { value: 'desc', label: 'Descending' },
              { value: 'asc', label: 'Ascending' },
            ]}
            value={search.sort}
            allowDeselect={false}
            onChange={(v) => v && change({ sort: v as 'asc' | 'desc' })}
            w={140}
          />
          <Button onClick={() => print.mutate()} loading={print.isPending} disabled={!list.data?.rows.length}>
            Print PDF
          </Button>
        </Group>
      </Group>
      {list.isPending ? (
        <Skeleton height={200} role="status" aria-label="Loading the picking list" />
      ) : list.isError ? (
        <QueryError
          title="Could not load the picking list"
          error={list.error}
          onRetry={list.refetch}
          retrying={list.isFetching}
        />
      ) : list.data.rows.length === 0 ? (
        <Alert variant="light" title="Nothing to pick">
          No selected order has units left to pick at this store.
        </Alert>
      ) : (
        <>
          <Text size="sm">
            {countOf(list.data.units, 'unit')} for {countOf(list.data.orders, 'order')}
          </Text>
          <Table.ScrollContainer minWidth={700}>
            <Table aria-label="Picking list" striped verticalSpacing="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">SKU</Table.Th>
                  <Table.Th scope="col">Item</Table.Th>
                  <Table.Th scope="col" style={{ textAlign: 'right' }}>
                    Units
                  </Table.Th>
                  <Table.Th scope="col">Orders</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.rows.map((row) => (
                  <Table.Tr key={row.sku}>
                    <Table.Td fw={600}>{row.sku}</Table.Td>
                    <Table.Td>{row.title}</Table.Td>
                    <Table.Td style={{ textAlign: 'right' }}>{row.units}</Table.Td>
                    <Table.Td>
                      <Group gap={6}>
                        {row.orders.map((o) => (
                          <Anchor
                            key={o.id}
                            size="sm"
                            renderRoot={(props) => (
                              <Link
                                {...props}
                                to="/fulfillment/$id"
                                params={{ id: o.id }}
                                search={{ store_id: search.store_id }}
                              />
                            )}
                          >
                            {o.number}
                            {o.units > 1 ? ` ×${o.units}` : ''}
                          </Anchor>
                        ))}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Stack>
  );
}
