import { Anchor, Badge, Group, SimpleGrid, Stack, Table, Text, Timeline } from '@mantine/core';
import {
  type Address,
  isFlaggingAllocation,
  isReleasedAllocation,
  needsRouting,
  ORDER_MESSAGES,
  type OrderDetail,
  type OrderLine,
  orderStatusLabel,
  type TimelineEntry,
  type TimelineKind,
} from '@switchyard/contracts';
import type { ReactNode } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { addressLines } from '../../../../lib/address.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { formatMoney } from '../../../subscription/-components/money.ts';
import { AllocationActions, WhyThisStore } from './allocation-routing.tsx';
import { AllocationBadge } from './order-parts.tsx';

/** A line needs the merchant when its SKU is unknown or one of its allocations is at 0, 4 or 5 (SPEC §4). */
export const lineNeedsAttention = (line: OrderLine) => line.unknownSku || needsRouting(line.allocations);

const ATTENTION_TINT = 'color-mix(in srgb, var(--mantine-color-red-light) 45%, transparent)';
/** Mantine's red for text: darker on light backgrounds, lighter on dark ones. */
const RED_TEXT = 'var(--mantine-color-red-text)';

/** A number's header stays on one line over its right-aligned figures ("Unit price" broke into "Unit / price"). */
const NUMERIC_HEADER = { textAlign: 'right', whiteSpace: 'nowrap' } as const;

export function LinesSection({ order }: { order: OrderDetail }) {
  const money = (minor: number) => formatMoney(minor, order.currency);
  return (
    <SectionCard title="Lines" description="What was ordered, and the stock each line holds at which location.">
      <Table.ScrollContainer minWidth={900}>
        <Table aria-label="Lines" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Item</Table.Th>
              <Table.Th scope="col" style={NUMERIC_HEADER}>
                Qty
              </Table.Th>
              <Table.Th scope="col" style={NUMERIC_HEADER}>
                Unit price
              </Table.Th>
              <Table.Th scope="col" style={NUMERIC_HEADER}>
                Line total
              </Table.Th>
              <Table.Th scope="col">Allocations</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {order.lines.map((line) => {
              const attention = lineNeedsAttention(line);
              return (
                <Table.Tr
                  key={line.id}
                  data-attention={attention || undefined}
                  // A red edge and a faint tint: both follow the colour scheme, and the red text on top stays legible.
                  style={attention ? { background: ATTENTION_TINT } : undefined}
                >
                  <Table.Td
                    style={attention ? { boxShadow: 'inset 4px 0 0 var(--mantine-color-red-filled)' } : undefined}
                  >
                    <Stack gap={2}>
                      <Text size="sm" fw={500}>
                        {line.title}
                      </Text>
                      <Group gap="xs">
                        <Text size="xs" c="dimmed" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                          {line.sku ?? 'No SKU'}
                        </Text>
                        {line.unknownSku ? (
                          <Badge color="red" variant="filled" size="sm">
                            Unknown SKU
                          </Badge>
                        ) : null}
                      </Group>
                      {line.unknownSku && line.sku ? (
                        <Text size="xs" c={RED_TEXT}>
                          {ORDER_MESSAGES.unknownSku(line.sku)}
                        </Text>
                      ) : null}
                      <LineProgress line={line} />
                    </Stack>
                  </Table.Td>
                  <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>{line.quantity}</Table.Td>
                  <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>{money(line.unitPrice)}</Table.Td>
                  <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
                    <Stack gap={0} align="flex-end">
                      <Text size="sm">{money(line.unitPrice * line.quantity - line.discount)}</Text>
                      {line.discount > 0 ? (
                        <Text size="xs" c="dimmed">
                          {money(-line.discount)} discount
                        </Text>
                      ) : null}
                      {line.tax > 0 ? (
                        <Text size="xs" c="dimmed">
                          {money(line.tax)} tax
                        </Text>
                      ) : null}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Allocations line={line} order={order} />
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </SectionCard>
  );
}

function LineProgress({ line }: { line: OrderLine }) {
  const parts = [
    line.fulfilledQty > 0 ? `${line.fulfilledQty} fulfilled` : null,
    line.cancelledQty > 0 ? `${line.cancelledQty} cancelled` : null,
    line.refundedQty > 0 ? `${line.refundedQty} refunded` : null,
  ].filter(Boolean);
  if (parts.length === 0) return null;
  return (
    <Text size="xs" c="dimmed">
      {parts.join(' · ')}
    </Text>
  );
}

/** Orders whose lines can still move between locations: not cancelled, fulfilled, picked up or refunded. */
const ROUTABLE_ORDER = (status: number) => ![3, 5, 7, 8].includes(status);

function Allocations({ line, order }: { line: OrderLine; order: OrderDetail }) {
  if (line.allocations.length === 0)
    return (
      <Text size="sm" c="dimmed">
        Not allocated
      </Text>
    );
  return (
    <Stack gap={10} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {line.allocations.map((allocation) => (
        <li key={allocation.id}>
          <Stack gap={4}>
            <Group gap="xs" wrap="wrap">
              <Text size="sm">
                {allocation.locationName ?? 'No location'}
                {allocation.storeId ? (
                  <Text span size="xs" c="dimmed" ff="monospace">
                    {' '}
                    ({allocation.storeId})
                  </Text>
                ) : null}
              </Text>
              <Text size="sm">× {allocation.quantity}</Text>
              <AllocationBadge status={allocation.status} released={isReleasedAllocation(allocation)} />
              {ROUTABLE_ORDER(order.status) ? (
                <AllocationActions orderId={order.id} allocation={allocation} line={line} />
              ) : null}
            </Group>
            {allocation.reason ? (
              <Text size="xs" c={isFlaggingAllocation(allocation.status) ? RED_TEXT : 'dimmed'}>
                {allocation.reason}
              </Text>
            ) : null}
            <WhyThisStore orderId={order.id} allocation={allocation} line={line} />
          </Stack>
        </li>
      ))}
    </Stack>
  );
}

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
