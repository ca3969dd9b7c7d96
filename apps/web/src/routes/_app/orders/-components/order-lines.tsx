// The order page's lines: what was ordered and the stock each line holds where (a table; on a phone, a list).
import { Badge, Group, Stack, Table, Text } from '@mantine/core';
import {
  isFlaggingAllocation,
  isReleasedAllocation,
  needsRouting,
  ORDER_MESSAGES,
  type OrderDetail,
  type OrderLine,
} from '@switchyard/contracts';
import { SectionCard } from '../../../../components/section-card.tsx';
import { usePhone } from '../../../../lib/media.ts';
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
  // On a phone a table of 900 px hid each line's allocations and their actions off to the right: one line under
  // another there, each with its figures and its allocations below it.
  const phone = usePhone();
  if (phone) return <LinesList order={order} money={money} />;
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
                    <LineItem line={line} />
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

/** A line's title, SKU (flagged when unknown) and what became of its units. */
function LineItem({ line }: { line: OrderLine }) {
  return (
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
  );
}

function LinesList({ order, money }: { order: OrderDetail; money: (minor: number) => string }) {
  return (
    <SectionCard title="Lines" description="What was ordered, and the stock each line holds at which location.">
      <Stack component="ul" gap="md" p={0} m={0} aria-label="Lines" style={{ listStyle: 'none' }}>
        {order.lines.map((line) => {
          const attention = lineNeedsAttention(line);
          return (
            <Stack
              component="li"
              key={line.id}
              gap="xs"
              p={attention ? 'xs' : 0}
              pl={attention ? 'sm' : 0}
              data-attention={attention || undefined}
              style={
                attention
                  ? { background: ATTENTION_TINT, boxShadow: 'inset 4px 0 0 var(--mantine-color-red-filled)' }
                  : undefined
              }
            >
              <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
                <LineItem line={line} />
                <Stack gap={0} align="flex-end" style={{ whiteSpace: 'nowrap' }}>
                  <Text size="sm">{money(line.unitPrice * line.quantity - line.discount)}</Text>
                  <Text size="xs" c="dimmed">
                    {line.quantity} × {money(line.unitPrice)}
                  </Text>
                </Stack>
              </Group>
              <Allocations line={line} order={order} />
            </Stack>
          );
        })}
      </Stack>
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
