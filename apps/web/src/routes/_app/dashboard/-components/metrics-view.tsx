// The dashboard's figures as charts (issue 17). Loaded lazily with the dashboard (index.tsx), so @mantine/charts
// and recharts are not in the app's first load. Every figure links to the list behind it.
import '@mantine/charts/styles.css';
import { Alert, Button, SimpleGrid, Stack, Text } from '@mantine/core';
import type { DashboardSearch, Metrics } from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { errorMessage } from '../../../../lib/errors.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { formatMoney } from '../../../subscription/-components/money.ts';
import { channelListOptions } from '../../channels/-components/channel-api.ts';
import { RankingFigure, SeriesFigure } from './metrics-charts.tsx';
import {
  changeLabel,
  countLabel,
  dayRangeLabel,
  durationLabel,
  percentLabel,
  periodLabel,
  plural,
  TIMEFRAME_LABELS,
} from './metrics-format.ts';
import { ListLink, StockFigure, SyncFigure } from './metrics-parts.tsx';
import { MetricsSkeleton } from './metrics-skeleton.tsx';
import { xAxisTicks } from './metrics-ticks.ts';

/** The dashboard's figures are read again this often while it is open (orders keep coming). */
export const METRICS_POLL_MS = 60_000;

const ORDERS_LIST = { to: '/orders', search: { status: -1 } };

export default function MetricsView({ search }: { search: DashboardSearch }) {
  const trpc = useTRPC();
  const query = useQuery({
    ...trpc.metrics.get.queryOptions(search),
    placeholderData: keepPreviousData,
    refetchInterval: METRICS_POLL_MS,
  });
  const channels = useQuery(channelListOptions(trpc));
  if (query.isPending) return <MetricsSkeleton />;
  if (query.isError) {
    return (
      <Alert color="red" title="The figures could not be loaded">
        <Stack gap="xs" align="flex-start">
          <Text size="sm">{errorMessage(query.error)}</Text>
          <Button size="xs" variant="light" onClick={() => void query.refetch()}>
            Try again
          </Button>
        </Stack>
      </Alert>
    );
  }
  return <Figures m={query.data} granularity={search.granularity} productsChannelId={channels.data?.[0]?.id ?? null} />;
}

function Figures({
  m,
  granularity,
  productsChannelId,
}: {
  m: Metrics;
  granularity: DashboardSearch['granularity'];
  productsChannelId: string | null;
}) {
  const money = (minor: number) => formatMoney(minor, m.currency);
  const compactMoney = (minor: number) => {
    const text = formatMoney(Math.round(minor), m.currency);
    return text.replace(/\.00(?=\D*$)/, '');
  };
  const data = m.series.map((p) => ({
    ...p,
    label: periodLabel(p.period, granularity),
    fulfillmentHours: p.fulfillmentSeconds === null ? null : Math.round((p.fulfillmentSeconds / 3600) * 10) / 10,
    returnsRate: p.units > 0 ? Math.round((p.returnUnits / p.units) * 1000) / 10 : 0,
    // A bucket without orders has no average: a gap in the line, not a fall to nothing.
    averageOrderValue: p.orders > 0 ? p.averageOrderValue : null,
    previousAverageOrderValue: p.previousOrders > 0 ? p.previousAverageOrderValue : null,
  }));
  const xTicks = xAxisTicks(
    data.map((row) => row.label),
    granularity,
  );
  const { totals, previousTotals: prev } = m;
  const nothingSold = totals.orders === 0 && prev.orders === 0;
  const period = `${TIMEFRAME_LABELS[m.timeframe]} (${dayRangeLabel(m.from, m.to)}, ${m.timezone})`;
  const ordersLink = <ListLink {...ORDERS_LIST}>Orders</ListLink>;
  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        {period}. Beside each figure: the {TIMEFRAME_LABELS[m.timeframe].toLowerCase()} before.
      </Text>
      {nothingSold && (
        <Alert color="gray" title="No orders in this period yet">
          Orders from your channels and stores show here as they come in.
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <SeriesFigure
          title="Sales"
          value={money(totals.sales)}
          change={changeLabel(totals.sales, prev.sales)}
          link={ordersLink}
          chart="area"
          h={200}
          data={data}
          kind="money"
          xTicks={xTicks}
          series={{ name: 'sales', label: 'Sales', color: 'blue.6' }}
          previous="previousSales"
          valueFormatter={compactMoney}
        />
        <SeriesFigure
          title="Orders"
          value={countLabel(totals.orders)}
          change={changeLabel(totals.orders, prev.orders)}
          link={ordersLink}
          chart="bar"
          h={200}
          data={data}
          kind="count"
          xTicks={xTicks}
          series={{ name: 'orders', label: 'Orders', color: 'blue.6' }}
          previous="previousOrders"
        />
        <SeriesFigure
          title="Average order value"
          value={money(totals.averageOrderValue)}
          change={changeLabel(totals.averageOrderValue, prev.averageOrderValue)}
          link={ordersLink}
          chart="line"
          h={180}
          data={data}
          kind="money"
          xTicks={xTicks}
          series={{ name: 'averageOrderValue', label: 'Average order value', color: 'violet.6' }}
          previous="previousAverageOrderValue"
          valueFormatter={compactMoney}
        />
        <SeriesFigure
          title="Units sold"
          value={countLabel(totals.units)}
          change={changeLabel(totals.units, prev.units)}
          link={ordersLink}
          chart="bar"
          h={180}
          data={data}
          kind="count"
          xTicks={xTicks}
          series={{ name: 'units', label: 'Units', color: 'teal.6' }}
          previous="previousUnits"
        />
        <RankingFigure
          title="Sales by channel"
          link={ordersLink}
          rows={m.byChannel.map((c) => ({ name: c.name, value: c.sales }))}
          color="blue"
          barsLabel="Channel"
          valueFormatter={money}
          empty="No sales in this period."
        />
        <RankingFigure
          title="Sales by location"
          link={<ListLink to="/locations">Locations</ListLink>}
          rows={m.byLocation.map((l) => ({
            name: l.name,
            value: l.sales,
            link: l.id ? { to: '/locations/$id', params: { id: l.id } } : undefined,
          }))}
          color="grape"
          barsLabel="Location"
          valueFormatter={money}
          empty="No sales in this period."
        />
        <RankingFigure
          title="Top SKUs"
          link={ordersLink}
          rows={m.topSkus.map((s) => ({
            name: s.sku,
            value: s.sales,
            link: { to: '/orders', search: { status: -1, search: s.sku }, label: `Orders with ${s.sku}` },
          }))}
          color="teal"
          barsLabel="SKU"
          valueFormatter={money}
          empty="No SKUs sold in this period."
        />
        <SeriesFigure
          title="Returns rate"
          value={percentLabel(totals.units > 0 ? totals.returnsRate : null)}
          change={changeLabel(totals.returnsRate, prev.returnsRate)}
          link={<ListLink to="/returns">Returns</ListLink>}
          note={
            <>
              {countLabel(totals.returnUnits)} of {plural(totals.units, 'unit')} came back in{' '}
              {plural(totals.returns, 'return')} ({money(totals.returnTotal)} refunded).
            </>
          }
          chart="line"
          h={140}
          data={data}
          kind="percent"
          xTicks={xTicks}
          series={{ name: 'returnsRate', label: 'Returned units', color: 'orange.6' }}
          unit="%"
        />
        <SeriesFigure
          title="Fulfillment time"
          value={durationLabel(totals.fulfillmentSeconds)}
          change={changeLabel(totals.fulfillmentSeconds, prev.fulfillmentSeconds)}
          link={
            <ListLink to="/fulfillment" search={{ filter: { scope: 'shipped' } }}>
              Shipped orders
            </ListLink>
          }
          note={<>Placed to shipped or picked up, on average over {plural(totals.fulfilled, 'order')}.</>}
          chart="bar"
          h={140}
          data={data}
          kind="hours"
          xTicks={xTicks}
          series={{ name: 'fulfillmentHours', label: 'Hours', color: 'cyan.6' }}
          unit=" h"
        />
        <StockFigure m={m} productsChannelId={productsChannelId} />
        <SyncFigure m={m} />
      </SimpleGrid>
    </Stack>
  );
}
