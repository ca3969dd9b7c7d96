import { Anchor, Badge, Button, CloseButton, Group, Skeleton, Stack, Table, Text } from '@mantine/core';
import { type Shipment, TRACKING_LABELS, type TrackingStatus } from '@switchyard/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { errorMessage } from '../../lib/errors.ts';
import { countOf, formatDateTime } from '../../lib/format.ts';
import { notify } from '../../lib/toast.ts';
import { useTRPC } from '../../lib/trpc.ts';
import { formatMoney } from '../../routes/subscription/-components/money.ts';
import { QueryError } from '../query-error.tsx';
import { SectionCard } from '../section-card.tsx';
import { BuyLabel } from './buy-label.tsx';
import type { ShipLine } from './ship-quantities.tsx';
import { fetchLabel, openPdf, serviceName, shipmentListOptions } from './shipment-api.ts';

const TRACKING_COLORS: Partial<Record<TrackingStatus, string>> = {
  pre_transit: 'gray',
  in_transit: 'blue',
  out_for_delivery: 'indigo',
  delivered: 'teal',
  failure: 'red',
  return_to_sender: 'orange',
  error: 'red',
};

export function TrackingBadge({ status }: { status: TrackingStatus | null }) {
  if (!status) return null;
  return (
    <Badge color={TRACKING_COLORS[status] ?? 'gray'} variant="light" data-testid="tracking-status">
      {TRACKING_LABELS[status]}
    </Badge>
  );
}

const CHANNEL_BADGES = {
  pending: { label: 'Sending to the channel', color: 'yellow' },
  ok: { label: 'At the channel', color: 'teal' },
  failed: { label: 'Channel not updated', color: 'red' },
} as const;

function ShipmentRow({ s }: { s: Shipment }) {
  const print = useMutation({
    mutationFn: (position: number) => fetchLabel({ shipment_id: s.id, package: position }),
    onSuccess: (blob, position) => openPdf(blob, `label-${s.packages[position - 1]?.trackingCode ?? s.id}.pdf`),
    onError: (e) => notify.error(errorMessage(e)),
  });
  const channel = s.channelStatus ? CHANNEL_BADGES[s.channelStatus] : null;
  return (
    <Table.Tr data-testid={`shipment-${s.id}`}>
      <Table.Td>
        <Stack gap={2}>
          <Text size="sm" fw={500}>
            {s.status === 'purchased'
              ? serviceName(s.carrier, s.service)
              : s.status === 'buying'
                ? 'Buying…'
                : 'Not bought'}
          </Text>
          <Text size="xs" c="dimmed">
            {[
              s.store?.name ?? 'A removed store',
              countOf(s.packages.length, 'parcel'),
              countOf(
                s.items.reduce((n, i) => n + i.quantity, 0),
                'unit',
              ),
            ].join(' · ')}
          </Text>
        </Stack>
      </Table.Td>
      <Table.Td>
        <Stack gap={4}>
          {s.packages
            .filter((p) => p.trackingCode)
            .map((p) => (
              <Group key={p.position} gap="xs">
                {p.trackingUrl ? (
                  <Anchor
                    href={p.trackingUrl}
                    target="_blank"
                    rel="noopener noreferrer"
                    size="sm"
                    data-testid="tracking-link"
                  >
                    {p.trackingCode}
                  </Anchor>
                ) : (
                  <Text size="sm">{p.trackingCode}</Text>
                )}
                <TrackingBadge status={p.trackingStatus} />
              </Group>
            ))}
          {s.status !== 'purchased' && s.error ? (
            <Text size="xs" c="red">
              {s.error}
            </Text>
          ) : null}
        </Stack>
      </Table.Td>
      <Table.Td>
        {channel ? (
          <Badge color={channel.color} variant="light" title={s.channelMessage ?? undefined}>
            {channel.label}
          </Badge>
        ) : (
          <Text size="sm" c="dimmed">
            —
          </Text>
        )}
      </Table.Td>
      <Table.Td ta="right">
        <Text size="sm">{s.amount !== null && s.currency ? formatMoney(s.amount, s.currency) : '—'}</Text>
        <Text size="xs" c="dimmed">
          {formatDateTime((s.purchasedAt ?? s.createdAt).toISOString())}
        </Text>
      </Table.Td>
      <Table.Td ta="right">
        {s.status === 'purchased' ? (
          <Group gap="xs" justify="flex-end">
            {s.packages.map((p) => (
              <Button
                key={p.position}
                size="xs"
                variant="light"
                data-testid="print-label"
                loading={print.isPending && print.variables === p.position}
                onClick={() => print.mutate(p.position)}
              >
                {s.packages.length > 1 ? `Print label ${p.position}` : 'Print label'}
              </Button>
            ))}
          </Group>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * An order's shipments (tracking link and status, the channel's copy, print) and, while it has units to ship,
 * "Buy label". `storeId` limits it to one store's units (the fulfillment screen); without it, the first store
 * that has units to ship. With `lines`, the form takes how many units of each go in the shipment.
 */
export function ShipmentsSection({
  orderId,
  storeId,
  lines,
  canBuy,
}: {
  orderId: string;
  storeId?: string;
  lines?: ShipLine[];
  canBuy: boolean;
}) {
  const trpc = useTRPC();
  const list = useQuery(shipmentListOptions(trpc, orderId));
  const [buying, setBuying] = useState(false);
  const buyButton = useRef<HTMLButtonElement>(null);
  const bought = (list.data?.results ?? []).filter((s) => s.status !== 'voided' && s.status !== 'rated');
  const close = () => {
    // The close button goes with the form: the keyboard goes on from the "Buy label" button that comes back.
    flushSync(() => setBuying(false));
    buyButton.current?.focus();
  };
  return (
    <SectionCard
      title="Shipments"
      description="Labels bought for this order, their tracking, and whether the channel has them."
      actions={
        // The open form is closed from the title's row, where a Mantine modal has its close button; a "Close"
        // under the form sat indented and apart from everything else at a phone's width.
        buying ? (
          <CloseButton size="lg" aria-label="Close the label form" onClick={close} data-testid="buy-label-close" />
        ) : canBuy ? (
          <Button size="sm" onClick={() => setBuying(true)} data-testid="buy-label" ref={buyButton}>
            Buy label
          </Button>
        ) : null
      }
    >
      {buying ? <BuyLabel orderId={orderId} storeId={storeId} lines={lines} onDone={() => setBuying(false)} /> : null}
      {list.isPending ? (
        <Skeleton height={60} />
      ) : list.isError ? (
        <QueryError
          title="Could not load the shipments"
          error={list.error}
          onRetry={list.refetch}
          retrying={list.isFetching}
        />
      ) : bought.length === 0 ? (
        <Text size="sm" c="dimmed">
          No label bought yet.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Shipment</Table.Th>
                <Table.Th>Tracking</Table.Th>
                <Table.Th>Channel</Table.Th>
                <Table.Th ta="right">Cost</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {bought.map((s) => (
                <ShipmentRow key={s.id} s={s} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </SectionCard>
  );
}
