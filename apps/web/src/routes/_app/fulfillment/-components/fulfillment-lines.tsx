import { Badge, Button, Group, Modal, Stack, Table, Text, Textarea } from '@mantine/core';
import type { FulfillmentLine, FulfillmentOrder } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { AllocationBadge } from '../../orders/-components/order-parts.tsx';
import { refreshFulfillment } from './fulfillment-api.ts';

/**
 * The order's lines allocated to this store: what to pick, how many are scanned, and rejecting one. After part of
 * a line shipped, an open line counts (and picks) only the units still to ship; "To ship" says what is left.
 */
export function FulfillmentLines({ order, storeId }: { order: FulfillmentOrder; storeId: string | undefined }) {
  const [rejecting, setRejecting] = useState<FulfillmentLine | null>(null);
  if (order.lines.length === 0)
    return <Text c="dimmed">Nothing of this order is allocated to {order.store?.name ?? 'this store'}.</Text>;
  return (
    <>
      <Table.ScrollContainer minWidth={760}>
        <Table aria-label="Lines to fulfil" verticalSpacing="sm" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">SKU</Table.Th>
              <Table.Th scope="col">Item</Table.Th>
              <Table.Th scope="col">Barcode</Table.Th>
              <Table.Th scope="col" style={{ textAlign: 'right' }}>
                To ship
              </Table.Th>
              <Table.Th scope="col" style={{ textAlign: 'right' }}>
                Picked
              </Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col" />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {order.lines.map((line) => {
              const open = line.status === 1 || line.status === 2;
              // An open line picks what is still to ship; a done one shows all its units.
              const of = open ? line.toShip : line.quantity;
              const shipped = open ? line.quantity - line.toShip : 0;
              return (
                <Table.Tr key={line.allocationId} data-line={line.sku ?? line.title}>
                  <Table.Td fw={600}>{line.sku ?? '—'}</Table.Td>
                  <Table.Td>
                    <Stack gap={0}>
                      <Text size="sm">{line.title}</Text>
                      {line.reason ? (
                        <Text size="xs" c="red">
                          {line.reason}
                        </Text>
                      ) : null}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {line.barcode ?? '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
                    {open ? (
                      <Stack gap={0} align="flex-end">
                        <Text size="sm" fw={500} aria-label={`${line.toShip} left to ship`}>
                          {line.toShip}
                        </Text>
                        {shipped > 0 ? (
                          <Text size="xs" c="dimmed">
                            {shipped} of {line.quantity} shipped
                          </Text>
                        ) : null}
                      </Stack>
                    ) : (
                      <Text size="sm" c="dimmed">
                        —
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
                    <Badge
                      variant="light"
                      color={line.scanned >= of ? 'teal' : line.scanned > 0 ? 'blue' : 'gray'}
                      aria-label={`${line.scanned} of ${of} picked`}
                    >
                      {line.scanned} / {of}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <AllocationBadge status={line.status} />
                  </Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>
                    {line.status === 1 || line.status === 2 ? (
                      <Button size="xs" variant="subtle" color="red" onClick={() => setRejecting(line)}>
                        Reject
                      </Button>
                    ) : null}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <RejectModal order={order} line={rejecting} storeId={storeId} onClose={() => setRejecting(null)} />
    </>
  );
}

function RejectModal({
  order,
  line,
  storeId,
  onClose,
}: {
  order: FulfillmentOrder;
  line: FulfillmentLine | null;
  storeId: string | undefined;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const reject = useMutation(
    trpc.fulfillment.reject.mutationOptions({
      onSuccess: async (next) => {
        await refreshFulfillment(queryClient, trpc, next);
        notify.success('Line rejected: the order is flagged for routing again.');
        setReason('');
        onClose();
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  return (
    <Modal opened={line !== null} onClose={onClose} title={`Reject ${line?.sku ?? line?.title ?? 'the line'}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!reason.trim()) {
            setError('Say why the line is rejected.');
            return;
          }
          if (line)
            reject.mutate({
              id: order.id,
              allocation_id: line.allocationId,
              reason: reason.trim(),
              ...(storeId ? { store_id: storeId } : {}),
            });
        }}
      >
        <Stack gap="sm">
          <Text size="sm">
            The store cannot fill this line: its units are released and the order is flagged so it can be routed to
            another location.
          </Text>
          <Textarea
            label="Reason"
            placeholder="Damaged, not on the shelf…"
            value={reason}
            onChange={(event) => {
              setReason(event.currentTarget.value);
              setError(null);
            }}
            error={error}
            maxLength={500}
            autosize
            minRows={2}
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Keep the line
            </Button>
            <Button color="red" type="submit" loading={reject.isPending}>
              Reject the line
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
