import { Anchor, Badge, Button, Group, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import {
  type AvailableExplanation,
  CHANNEL_LABELS,
  type ListingDetail,
  type ProductSyncSummary,
  type StockLevel,
  type StockMovement,
  SYNC_TYPE_LABELS,
  type SyncStatus,
} from '@switchyard/contracts';
import { Link } from '@tanstack/react-router';
import { SectionCard } from '../../../../components/section-card.tsx';
import { formatDateTime } from '../../../../lib/format.ts';
import type { StockChangeMode } from './stock-change-modal.tsx';
import { SyncStatusBadge } from './sync-status-badge.tsx';

const time = (date: Date | null, fallback = '—') =>
  date ? <time dateTime={date.toISOString()}>{formatDateTime(date.toISOString())}</time> : fallback;

const sameMinute = (a: Date, b: Date | null) =>
  b !== null && formatDateTime(a.toISOString()) === formatDateTime(b.toISOString());

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

// ------------------------------------------------------------------------------------------------ stock

export function StockTable({
  sku,
  stock,
  onChange,
}: {
  sku: string;
  stock: StockLevel[];
  onChange: (mode: StockChangeMode, level: StockLevel) => void;
}) {
  return (
    <SectionCard
      title="Stock per location"
      description="On hand is what is on the shelf; reserved units are promised to open orders."
    >
      {stock.length === 0 ? (
        <Text size="sm" c="dimmed">
          You have no locations yet.{' '}
          <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/channels" />}>
            Map your channel locations
          </Anchor>{' '}
          to keep stock per store.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={`Stock of ${sku} per location`} verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Location</Table.Th>
                <Table.Th scope="col">On hand</Table.Th>
                <Table.Th scope="col">Reserved</Table.Th>
                <Table.Th scope="col">Free</Table.Th>
                <Table.Th scope="col">Updated</Table.Th>
                <Table.Th scope="col">
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {stock.map((level) => (
                <Table.Tr key={level.locationId}>
                  <Table.Td>
                    <Stack gap={0}>
                      <Group gap={6}>
                        <Text size="sm" fw={500}>
                          {level.locationName}
                        </Text>
                        {level.enabled ? null : (
                          <Badge size="xs" color="gray" variant="light">
                            Disabled
                          </Badge>
                        )}
                      </Group>
                      <Text size="xs" c="dimmed">
                        Store {level.storeId}
                      </Text>
                    </Stack>
                  </Table.Td>
                  <Table.Td>{level.onHand}</Table.Td>
                  <Table.Td>{level.reserved}</Table.Td>
                  <Table.Td>{Math.max(0, level.onHand - level.reserved)}</Table.Td>
                  <Table.Td>{time(level.updatedAt, 'Never')}</Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      <Button
                        size="xs"
                        variant="light"
                        aria-label={`Adjust ${sku} at ${level.locationName}`}
                        onClick={() => onChange('adjust', level)}
                      >
                        Adjust
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        aria-label={`Count ${sku} at ${level.locationName}`}
                        onClick={() => onChange('count', level)}
                      >
                        Count
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </SectionCard>
  );
}

// -------------------------------------------------------------------------------------------- available

/** "12 on hand − 2 reserved − 3 buffer − 1 safety stock = 6" (never below 0). */
export function availableFormula(row: AvailableExplanation): string {
  const parts = [
    `${row.onHand} on hand`,
    `${row.reserved} reserved`,
    `${row.buffer} buffer`,
    `${row.safetyStock} safety stock`,
  ];
  const raw = row.onHand - row.reserved - row.buffer - row.safetyStock;
  return `${parts.join(' − ')} = ${row.available}${raw < 0 ? ' (never below 0)' : ''}`;
}

function PushState({ row }: { row: AvailableExplanation }) {
  if (!row.locationId) return <Text size="sm">Not mapped to one of your locations: nothing is pushed here.</Text>;
  return (
    <Stack gap={2}>
      {row.pushedQty === null ? (
        <Text size="sm">Not pushed yet.</Text>
      ) : (
        <Text size="sm">
          Pushed {row.pushedQty}
          {row.pushedAt ? <> on {time(row.pushedAt)}</> : null}
          {row.acknowledgedAt ? (
            // Within the minute shown (nearly always): the time once. "Pushed 30 Nov 28, …" read as a date.
            sameMinute(row.acknowledgedAt, row.pushedAt) ? (
              ', acknowledged'
            ) : (
              <>, acknowledged on {time(row.acknowledgedAt)}</>
            )
          ) : (
            ', not acknowledged yet'
          )}
        </Text>
      )}
      {row.pendingQty !== null ? (
        <Text size="sm" c="yellow.8">
          Sending {row.pendingQty} since {time(row.pendingAt)}
        </Text>
      ) : null}
      {row.channelQty !== null ? (
        <Text size="xs" c="dimmed">
          The channel last reported {row.channelQty}
          {row.channelQtyAt ? <> on {time(row.channelQtyAt)}</> : null}
        </Text>
      ) : null}
      {row.lastError ? (
        <Text size="xs" c="red">
          {row.lastError}
        </Text>
      ) : null}
    </Stack>
  );
}

export function AvailableTable({ sku, rows }: { sku: string; rows: AvailableExplanation[] }) {
  return (
    <SectionCard
      title="Available per channel"
      description="What each channel is told it can sell at each of its locations, and why."
    >
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {sku} is not listed on any channel location yet.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={860}>
          <Table aria-label={`Available of ${sku} per channel`} verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Channel location</Table.Th>
                <Table.Th scope="col">How it is worked out</Table.Th>
                <Table.Th scope="col">Available</Table.Th>
                <Table.Th scope="col">On the channel</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={`${row.channelId}:${row.externalLocationId}`}>
                  <Table.Td>
                    <Stack gap={0}>
                      <Text size="sm" fw={500}>
                        {row.channelName}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {CHANNEL_LABELS[row.channelType]} · {row.externalLocationName ?? row.externalLocationId}
                        {row.locationName ? ` → ${row.locationName}` : ''}
                      </Text>
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{row.locationId ? availableFormula(row) : '—'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Text size="sm" fw={700}>
                        {row.available}
                      </Text>
                      {row.locationId ? (
                        row.inSync ? (
                          <Badge size="xs" color="teal" variant="light">
                            In sync
                          </Badge>
                        ) : (
                          <Badge size="xs" color="yellow" variant="light">
                            Not yet sent
                          </Badge>
                        )
                      ) : null}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <PushState row={row} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </SectionCard>
  );
}

// --------------------------------------------------------------------------------------------- listings

export function ListingsTable({ sku, listings }: { sku: string; listings: ListingDetail[] }) {
  return (
    <SectionCard title="Listings" description="This variant on each channel, with the channel’s own ids.">
      {listings.length === 0 ? (
        <Text size="sm" c="dimmed">
          {sku} is not on any channel yet. Sync it to publish it.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table aria-label={`Listings of ${sku}`} verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Channel</Table.Th>
                <Table.Th scope="col">Channel ids</Table.Th>
                <Table.Th scope="col">Sync status</Table.Th>
                <Table.Th scope="col">Last synced</Table.Th>
                <Table.Th scope="col">Last error</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {listings.map((listing) => (
                <Table.Tr key={listing.id}>
                  <Table.Td>
                    <Stack gap={0}>
                      <Text size="sm" fw={500}>
                        {listing.channelName}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {CHANNEL_LABELS[listing.channelType]}
                      </Text>
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace">
                      {listing.externalProductId ?? '—'}
                      {listing.externalVariantId ? ` / ${listing.externalVariantId}` : ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <SyncStatusBadge code={listing.syncStatusCode} />
                  </Table.Td>
                  <Table.Td>{time(listing.lastSyncedAt, 'Never')}</Table.Td>
                  <Table.Td>
                    {listing.lastError ? (
                      <Text size="sm" c="red">
                        {listing.lastError}
                      </Text>
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </SectionCard>
  );
}

// -------------------------------------------------------------------------------------------- movements

const REASON_LABELS: Record<StockMovement['reason'], string> = {
  adjustment: 'Adjustment',
  count: 'Count',
  import: 'Import',
  channel: 'Channel',
  reconcile: 'Reconciliation',
  removed: 'Variant deleted',
  order: 'Order',
  return: 'Return',
  transfer: 'Transfer',
};

export function MovementsTable({ movements }: { movements: StockMovement[] }) {
  return (
    <SectionCard title="Recent stock movements" description="Every change of stock, newest first (the latest 50).">
      {movements.length === 0 ? (
        <Text size="sm" c="dimmed">
          No stock has moved yet.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table aria-label="Recent stock movements" verticalSpacing="xs" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">When</Table.Th>
                <Table.Th scope="col">SKU</Table.Th>
                <Table.Th scope="col">Location</Table.Th>
                <Table.Th scope="col">Change</Table.Th>
                <Table.Th scope="col">On hand after</Table.Th>
                <Table.Th scope="col">Why</Table.Th>
                <Table.Th scope="col">By</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {movements.map((movement) => (
                <Table.Tr key={movement.id}>
                  <Table.Td>{time(movement.createdAt)}</Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {movement.sku}
                    </Text>
                  </Table.Td>
                  <Table.Td>{movement.locationName}</Table.Td>
                  <Table.Td>
                    <Text size="sm" c={movement.delta < 0 ? 'red' : movement.delta > 0 ? 'teal' : undefined} fw={500}>
                      {signed(movement.delta)}
                    </Text>
                    {movement.reservedDelta !== 0 ? (
                      <Text size="xs" c="dimmed">
                        reserved {signed(movement.reservedDelta)}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>{movement.onHandAfter}</Table.Td>
                  <Table.Td>
                    <Stack gap={0}>
                      <Text size="sm">{REASON_LABELS[movement.reason]}</Text>
                      {movement.reference ? (
                        <Text size="xs" c="dimmed">
                          {movement.reference}
                        </Text>
                      ) : null}
                    </Stack>
                  </Table.Td>
                  <Table.Td>{movement.userEmail ?? movement.source}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </SectionCard>
  );
}

// ------------------------------------------------------------------------------------------------ syncs

const RUN_STATUS: Record<SyncStatus, { label: string; color: string }> = {
  queued: { label: 'Queued', color: 'gray' },
  running: { label: 'Running', color: 'blue' },
  succeeded: { label: 'Succeeded', color: 'teal' },
  partial: { label: 'Partly failed', color: 'orange' },
  failed: { label: 'Failed', color: 'red' },
};

export function SyncHistoryTable({ syncs }: { syncs: ProductSyncSummary[] }) {
  return (
    <SectionCard title="Sync history" description="The latest runs that concerned this product.">
      {syncs.length === 0 ? (
        <Text size="sm" c="dimmed">
          No sync has run for this product yet.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table aria-label="Sync history" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Sync</Table.Th>
                <Table.Th scope="col">Channel</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Items</Table.Th>
                <Table.Th scope="col">Started</Table.Th>
                <Table.Th scope="col">Finished</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {syncs.map((sync) => {
                const status = RUN_STATUS[sync.status];
                return (
                  <Table.Tr key={sync.id}>
                    <Table.Td>
                      <Anchor
                        size="sm"
                        renderRoot={(props) => <Link {...props} to="/syncs/$id" params={{ id: String(sync.id) }} />}
                      >
                        {SYNC_TYPE_LABELS[sync.type]} #{sync.id}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{sync.channelName ?? '—'}</Table.Td>
                    <Table.Td>
                      <Stack gap={2} align="flex-start">
                        <Badge color={status.color} variant="light">
                          {status.label}
                        </Badge>
                        {sync.itemError ? (
                          <Text size="xs" c="red">
                            {sync.itemError}
                          </Text>
                        ) : null}
                      </Stack>
                    </Table.Td>
                    <Table.Td>
                      {sync.processed}/{sync.total}
                      {sync.failed > 0 ? (
                        <Text span size="sm" c="red">
                          {' '}
                          ({sync.failed} failed)
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td>{time(sync.createdAt)}</Table.Td>
                    <Table.Td>{time(sync.finishedAt, sync.status === 'running' ? 'Running…' : '—')}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </SectionCard>
  );
}
