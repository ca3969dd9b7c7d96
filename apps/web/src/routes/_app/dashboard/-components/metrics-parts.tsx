// The dashboard's building blocks: a figure's card with its link to the list behind it, and the stock and sync
// health figures.
import { DonutChart } from '@mantine/charts';
import { Anchor, Badge, Card, Group, Stack, Text } from '@mantine/core';
import type { Metrics } from '@switchyard/contracts';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { formatDateTime } from '../../../../lib/format.ts';
import { countLabel, durationLabel, percentLabel } from './metrics-format.ts';

/** A link to a list screen (some are other areas' routes, so the path is not checked against the route tree). */
export function ListLink({
  to,
  search,
  children,
}: {
  to: string;
  search?: Record<string, unknown>;
  children: ReactNode;
}) {
  return (
    <Anchor component={Link} to={to as never} search={search as never} size="sm">
      {children}
    </Anchor>
  );
}

export function Figure({
  title,
  link,
  children,
  value,
  change,
}: {
  title: string;
  link: ReactNode;
  children?: ReactNode;
  value?: string;
  change?: string | null;
}) {
  const id = `figure-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby={id}>
      <Stack gap="xs">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Text id={id} fw={600} size="sm" c="dimmed">
            {title}
          </Text>
          {link}
        </Group>
        {value !== undefined && (
          <Group gap="xs" align="baseline">
            <Text fz={26} fw={700} data-testid={`${id}-value`}>
              {value}
            </Text>
            {change && (
              <Badge variant="light" color={change.startsWith('+') ? 'teal' : change.startsWith('−') ? 'red' : 'gray'}>
                {change} vs previous
              </Badge>
            )}
          </Group>
        )}
        {children}
      </Stack>
    </Card>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <Text size="sm" c="dimmed" py="md">
      {children}
    </Text>
  );
}

export function StockFigure({ m, productsChannelId }: { m: Metrics; productsChannelId: string | null }) {
  const { stock } = m;
  const inStock = Math.max(0, stock.skus - stock.outOfStock - stock.lowStock);
  const products = (qty: number) =>
    productsChannelId ? (
      <Anchor
        component={Link}
        to={'/products/$channelId' as never}
        params={{ channelId: productsChannelId } as never}
        search={{ filter: { qtyOperation: '<=', qty } } as never}
        size="sm"
      >
        {qty === 0 ? 'Out of stock' : 'Low stock'}
      </Anchor>
    ) : null;
  return (
    <Figure title="Stock health" link={products(0)} value={`${countLabel(stock.outOfStock)} out of stock`}>
      {stock.skus === 0 ? (
        <Empty>No SKUs in your catalog yet.</Empty>
      ) : (
        <Group align="center" wrap="nowrap">
          <DonutChart
            size={130}
            thickness={22}
            data={[
              { name: 'Out of stock', value: stock.outOfStock, color: 'red.6' },
              { name: `Low stock (≤ ${stock.lowStockThreshold})`, value: stock.lowStock, color: 'yellow.5' },
              { name: 'In stock', value: inStock, color: 'teal.5' },
            ]}
            chartLabel={countLabel(stock.skus)}
            aria-label="SKUs by stock"
            // Not a Tab stop of its own: recharts' pie took focus with no name, and the counts are beside it in text.
            pieProps={{ rootTabIndex: -1 }}
          />
          <Stack gap={4}>
            <Text size="sm">
              {countLabel(stock.lowStock)} low (≤ {stock.lowStockThreshold} available){' '}
              {products(stock.lowStockThreshold)}
            </Text>
            <Text size="sm">{countLabel(inStock)} in stock</Text>
            <Text size="sm">
              Sell-through: <strong>{percentLabel(stock.sellThrough)}</strong> ({countLabel(m.totals.units)} sold,{' '}
              {countLabel(stock.onHand)} on hand)
            </Text>
            {/* Notifications speak of each location: a SKU out at one store and in stock at another is in stock here. */}
            <Text size="xs" c="dimmed">
              Counted over all your locations together.
            </Text>
          </Stack>
        </Group>
      )}
    </Figure>
  );
}

export function SyncFigure({ m }: { m: Metrics }) {
  const { sync } = m;
  const healthy = sync.failedItemsToday === 0 && sync.pushLagSeconds < 300;
  return (
    <Figure
      title="Sync health"
      value={sync.pendingChanges === 0 ? 'Up to date' : `${durationLabel(sync.pushLagSeconds)} behind`}
      link={
        <ListLink to="/syncs" search={{ has_errors: true }}>
          Syncs with errors
        </ListLink>
      }
    >
      <Group gap="xs">
        <Badge color={healthy ? 'teal' : 'orange'} variant="light">
          {healthy ? 'Healthy' : 'Needs a look'}
        </Badge>
        <Text size="sm">
          {countLabel(sync.failedItemsToday)} failed {sync.failedItemsToday === 1 ? 'item' : 'items'} today in{' '}
          {countLabel(sync.failedRunsToday)} {sync.failedRunsToday === 1 ? 'run' : 'runs'}
        </Text>
      </Group>
      <Text size="sm" c="dimmed">
        {countLabel(sync.pendingChanges)} stock {sync.pendingChanges === 1 ? 'change' : 'changes'} waiting to push
        {sync.lastPushAt ? `; last push ${formatDateTime(sync.lastPushAt.toISOString())}` : ''}.
      </Text>
    </Figure>
  );
}
