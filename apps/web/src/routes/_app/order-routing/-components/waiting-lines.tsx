import { Anchor, SegmentedControl, Skeleton, Stack, Table, Text } from '@mantine/core';
import { type AllocationList, FLAGGING_ALLOCATION_STATUSES, type ListAllocationsInput } from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { Pager } from '../../../../components/pager.tsx';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { api } from '../../../../lib/api.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { allocationStatusLabel } from '../../orders/-components/order-parts.tsx';

const PAGE_SIZE = 25;

/** The list as REST answers it: JSON, dates as ISO strings. */
type WireAllocationList = Omit<AllocationList, 'results'> & {
  results: (Omit<AllocationList['results'][number], 'createdAt' | 'updatedAt'> & { updatedAt: string })[];
};

/** SPEC §7: `POST shipping/listOrderItemAllocations`. */
export function listOrderItemAllocations(input: ListAllocationsInput) {
  return api.frontend.post<WireAllocationList>('shipping/listOrderItemAllocations', input);
}

/**
 * Lines that need routing again (SPEC §4: an allocation at 0, 4 or 5), by status: what a store rejected, what
 * no location had the stock for, what was never placed. Each links to its order, where it can be reassigned.
 */
export function WaitingLines() {
  const [status, setStatus] = useState<number>(5);
  const [offset, setOffset] = useState(0);
  const input = { status, limit: PAGE_SIZE, offset };
  const lines = useQuery({
    queryKey: ['rest', 'shipping', 'listOrderItemAllocations', input],
    queryFn: () => listOrderItemAllocations(input),
    placeholderData: keepPreviousData,
    // Lines leave this list as they are placed elsewhere: read it again while the page is open.
    refetchInterval: 10_000,
  });
  return (
    <SectionCard
      title="Lines waiting for a store"
      description="Lines a store said no to, that no location had the stock for, or that were never placed. Open the order to move a line to a location by hand."
    >
      <SegmentedControl
        aria-label="Allocation status"
        value={String(status)}
        onChange={(value) => {
          setStatus(Number(value));
          setOffset(0);
        }}
        data={[...FLAGGING_ALLOCATION_STATUSES]
          .sort((a, b) => b - a)
          .map((value) => ({ value: String(value), label: allocationStatusLabel(value) }))}
        maw={560}
      />
      {lines.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading the waiting lines">
          <Skeleton height={32} />
          <Skeleton height={32} />
        </Stack>
      ) : lines.isError ? (
        <QueryError
          title="Could not load the waiting lines"
          error={lines.error}
          onRetry={lines.refetch}
          retrying={lines.isFetching}
        />
      ) : lines.data.results.length === 0 ? (
        <Text size="sm" c="dimmed">
          No line with status {allocationStatusLabel(status)} right now.
        </Text>
      ) : (
        <Stack gap="sm">
          <Table.ScrollContainer minWidth={720}>
            <Table aria-label="Waiting lines" verticalSpacing={6}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Order</Table.Th>
                  <Table.Th scope="col">Item</Table.Th>
                  <Table.Th scope="col" style={{ textAlign: 'right' }}>
                    Qty
                  </Table.Th>
                  <Table.Th scope="col">Last location</Table.Th>
                  <Table.Th scope="col">Why</Table.Th>
                  <Table.Th scope="col">Since</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {lines.data.results.map((row) => (
                  <Table.Tr key={row.id}>
                    <Table.Td>
                      <Anchor
                        size="sm"
                        renderRoot={(props) => <Link {...props} to="/orders/$id" params={{ id: row.orderId }} />}
                      >
                        {row.orderNumber}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{row.title}</Text>
                      <Text size="xs" c="dimmed" ff="monospace">
                        {row.sku ?? 'No SKU'}
                      </Text>
                    </Table.Td>
                    <Table.Td style={{ textAlign: 'right' }}>{row.quantity}</Table.Td>
                    <Table.Td>{row.locationName ?? '—'}</Table.Td>
                    <Table.Td>{row.reason ?? '—'}</Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(row.updatedAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Pager
            total={lines.data.total}
            limit={PAGE_SIZE}
            offset={offset}
            onChange={setOffset}
            label="Waiting lines"
            disabled={lines.isFetching}
          />
        </Stack>
      )}
    </SectionCard>
  );
}
