import { Anchor, Badge, Group, SimpleGrid, Stack, Table, Text, Timeline } from '@mantine/core';
import {
  type Address,
  type OrderDetail,
  orderStatusLabel,
  type TimelineEntry,
  type TimelineKind,
} from '@switchyard/contracts';
import type { ReactNode } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { addressLines } from '../../../../lib/address.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { formatMoney } from '../../../subscription/-components/money.ts';

function AddressBlock({ address }: { address: Address | null }) {
  if (!address)
    return (
      <Text size="sm" c="dimmed">
        None given
      </Text>
    );
  const lines = addressLines(address);
  return (
    <Text size="sm" component="address" style={{ fontStyle: 'normal', whiteSpace: 'pre-line' }}>
      {lines.join('\n')}
    </Text>
  );
}

function Labelled({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={4}>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase">
        {label}
      </Text>
      {children}
    </Stack>
  );
}

/** `shippingAction` (editing the address, say) sits under the shipping address where one is shown. */
export function CustomerSection({ order, shippingAction }: { order: OrderDetail; shippingAction?: ReactNode }) {
  return (
    <SectionCard title="Customer">
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
        <Labelled label="Contact">
          <Stack gap={2}>
            <Text size="sm">{order.customerName ?? 'Guest'}</Text>
            {order.customerEmail ? (
              <Anchor size="sm" href={`mailto:${order.customerEmail}`}>
                {order.customerEmail}
              </Anchor>
            ) : null}
            {order.customerPhone ? <Text size="sm">{order.customerPhone}</Text> : null}
          </Stack>
        </Labelled>
        {order.fulfillmentType === 'ship' || !order.pickupLocation ? (
          <Labelled label="Shipping address">
            <AddressBlock address={order.shippingAddress} />
            {shippingAction ? <Group>{shippingAction}</Group> : null}
          </Labelled>
        ) : (
          <Labelled label="Pickup at">
            <Text size="sm">
              {order.pickupLocation.name}
              {order.pickupLocation.storeId ? ` (${order.pickupLocation.storeId})` : ''}
            </Text>
          </Labelled>
        )}
        <Labelled label="Billing address">
          <AddressBlock address={order.billingAddress} />
        </Labelled>
      </SimpleGrid>
    </SectionCard>
  );
}

export function PaymentSection({ order }: { order: OrderDetail }) {
  const money = (minor: number) => formatMoney(minor, order.currency);
  const rows: [string, string][] = [
    ['Subtotal', money(order.subtotal)],
    ['Shipping', money(order.shippingTotal)],
    ['Discounts', order.discountTotal > 0 ? money(-order.discountTotal) : money(0)],
    ['Tax', money(order.taxTotal)],
  ];
  return (
    <SectionCard title="Payment">
      <Table aria-label="Payment" withRowBorders={false} verticalSpacing={4}>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" fw={400}>
                {label}
              </Table.Th>
              <Table.Td style={{ textAlign: 'right' }}>{value}</Table.Td>
            </Table.Tr>
          ))}
          <Table.Tr>
            <Table.Th scope="row">Total</Table.Th>
            <Table.Td style={{ textAlign: 'right' }} fw={700}>
              {money(order.total)}
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th scope="row" fw={400}>
              Payment status
            </Table.Th>
            <Table.Td style={{ textAlign: 'right' }}>
              {order.financialStatus ? paymentStatus(order.financialStatus) : '—'}
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </SectionCard>
  );
}

const TIMELINE_LABELS: Record<TimelineKind, string> = {
  imported: 'Imported',
  updated: 'Updated',
  status: 'Status changed',
  allocated: 'Allocated',
  flagged: 'Flagged',
  released: 'Stock released',
  comment: 'Comment',
  write_back: 'Sent to the channel',
  shipment: 'Shipment',
  returned: 'Returned',
};

const OUTCOME_BADGES = {
  ok: { label: 'Done', color: 'teal' },
  failed: { label: 'Failed', color: 'red' },
  pending: { label: 'Pending', color: 'gray' },
} as const;

export function TimelineSection({ entries }: { entries: TimelineEntry[] }) {
  // Newest first: what happened last is what the merchant usually came to see. Entries of one moment (an import
  // and its allocation, written together) come in the order they happened, so they are turned around as well.
  const sorted = [...entries].reverse().sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  return (
    <SectionCard title="Timeline">
      {sorted.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing has happened to this order yet.
        </Text>
      ) : (
        <Timeline bulletSize={14} lineWidth={2} aria-label="Timeline">
          {sorted.map((entry) => (
            <Timeline.Item
              key={entry.id}
              color={entry.kind === 'flagged' || entry.outcome === 'failed' ? 'red' : undefined}
              title={
                <Group gap="xs">
                  <Text size="sm" fw={600}>
                    {TIMELINE_LABELS[entry.kind]}
                  </Text>
                  {entry.fromStatus !== null || entry.toStatus !== null ? (
                    <Text size="sm">
                      {entry.fromStatus === null ? '→ ' : `${orderStatusLabel(entry.fromStatus)} → `}
                      {entry.toStatus === null ? '' : orderStatusLabel(entry.toStatus)}
                    </Text>
                  ) : null}
                  {entry.outcome ? (
                    <Badge size="sm" variant="light" color={OUTCOME_BADGES[entry.outcome].color}>
                      {OUTCOME_BADGES[entry.outcome].label}
                    </Badge>
                  ) : null}
                </Group>
              }
            >
              <Text size="sm">{entry.message}</Text>
              <Text size="xs" c="dimmed">
                {entry.actor ? `${entry.actor} · ` : ''}
                <time dateTime={entry.createdAt.toISOString()}>{formatDateTime(entry.createdAt.toISOString())}</time>
              </Text>
            </Timeline.Item>
          ))}
        </Timeline>
      )}
    </SectionCard>
  );
}

/** The channel's payment status as words: PARTIALLY_REFUNDED, partially_refunded → "Partially refunded". */
function paymentStatus(raw: string): string {
  const words = raw.replace(/_/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
