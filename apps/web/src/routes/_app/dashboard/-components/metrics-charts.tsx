// The dashboard's chart cards: a figure over time (beside the previous period's when there is one) and a ranking
// (channels, locations, SKUs) whose bars can each link to what is behind them.
import { AreaChart, BarChart, BarsList, LineChart } from '@mantine/charts';
import { Anchor, Text } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { ComponentProps, ReactNode } from 'react';
import { Empty, Figure } from './metrics-parts.tsx';
import { hoursTickLabel, type ValueKind, valueAxisTicks } from './metrics-ticks.ts';

type FigureProps = Omit<ComponentProps<typeof Figure>, 'children'>;

export function SeriesFigure({
  chart,
  h,
  data,
  series,
  previous,
  valueFormatter,
  unit,
  note,
  kind,
  xTicks,
  ...figure
}: FigureProps & {
  chart: 'area' | 'bar' | 'line';
  h: number;
  /** One row per bucket, labelled by `label`. */
  data: Record<string, unknown>[];
  series: { name: string; label: string; color: string };
  /** The row key of the previous period's value: drawn grey beside the current one, with a legend. */
  previous?: string;
  valueFormatter?: (value: number) => string;
  unit?: string;
  /** A line of text above the chart. */
  note?: ReactNode;
  /** What the values count in: the value axis ticks at round steps of it, from 0 (metrics-ticks.ts). */
  kind: ValueKind;
  /** The bucket labels the date axis ticks (xAxisTicks): evenly apart, few enough to read. */
  xTicks?: string[];
}) {
  const before = previous
    ? chart === 'bar'
      ? { name: previous, label: 'Previous period', color: 'gray.4' }
      : { name: previous, label: 'Previous period', color: 'gray.5', strokeDasharray: '5 5' }
    : null;
  const shown = before ? [series, before] : [series];
  const highest = Math.max(
    0,
    ...data.flatMap((row) => shown.map((s) => row[s.name])).filter((v): v is number => typeof v === 'number'),
  );
  const yTicks = valueAxisTicks(highest, kind);
  // A line's first and last points stand on the plot's edges, where recharts slid their labels inwards (the last
  // one then stood closer to the one before, or hid it): the line keeps half a label's width clear at each end.
  // A bar stands in the middle of its slot, so bars need none.
  const edge = chart === 'bar' ? 0 : Math.ceil(Math.max(0, ...(xTicks ?? []).map((t) => t.length)) * 3.5);
  const yAxisProps = {
    domain: [0, yTicks.at(-1) as number],
    ticks: yTicks,
    interval: 0 as const,
    // An hours axis says its unit in each label (in days once its ticks are whole days); the tooltip keeps `unit`.
    ...(kind === 'hours' ? { tickFormatter: hoursTickLabel(yTicks), unit: undefined } : {}),
  };
  const common = {
    h,
    data,
    dataKey: 'label',
    series: shown,
    valueFormatter,
    unit,
    withLegend: before !== null,
    yAxisProps,
    xAxisProps: xTicks ? { ticks: xTicks, padding: edge === 0 ? undefined : { left: edge, right: edge } } : undefined,
    // In the chart's own order (this period, then the previous one), as its bars stand and its areas are drawn:
    // recharts sorts the legend by name unless told otherwise, which put "previousSales" before "sales".
    legendProps: { itemSorter: (item: { dataKey?: unknown }) => shown.findIndex((s) => s.name === item.dataKey) },
  };
  return (
    <Figure {...figure}>
      {note ? (
        <Text size="sm" c="dimmed">
          {note}
        </Text>
      ) : null}
      {chart === 'area' ? (
        <AreaChart {...common} curveType="monotone" withDots={false} fillOpacity={0.15} />
      ) : chart === 'line' ? (
        // Gaps (a bucket without a value) stay gaps; small dots keep a value between two gaps in sight.
        <LineChart {...common} connectNulls={false} dotProps={{ r: 2 }} activeDotProps={{ r: 4 }} />
      ) : (
        <BarChart {...common} />
      )}
    </Figure>
  );
}

interface Ranked {
  name: string;
  value: number;
  /** Where the bar leads (another area's route, so not checked against the route tree). */
  link?: { to: string; params?: Record<string, string>; search?: Record<string, unknown>; label?: string };
}

export function RankingFigure({
  rows,
  color,
  barsLabel,
  valueFormatter,
  empty,
  ...figure
}: Omit<FigureProps, 'value' | 'change'> & {
  rows: Ranked[];
  /** A plain theme colour (`blue`, not `blue.2`): a fixed shade keeps its pale fill under white text in dark mode. */
  color: 'blue' | 'grape' | 'teal';
  barsLabel: string;
  valueFormatter: (value: number) => string;
  /** Said when there is nothing to rank. */
  empty: string;
}) {
  const byName = new Map(rows.map((r) => [r.name, r]));
  return (
    <Figure {...figure}>
      {rows.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <BarsList
          data={rows.map((r) => ({ name: r.name, value: r.value, color }))}
          // A short bar's name runs on past it on one line (not broken over two in a sliver of colour); the bars'
          // light variant of a plain colour gives text that reads on the bar and on the card in both colour modes.
          styles={{ barLabel: { whiteSpace: 'nowrap', overflow: 'visible' } }}
          valueFormatter={valueFormatter}
          barsLabel={barsLabel}
          valueLabel="Sales"
          aria-label={figure.title}
          renderBar={(bar, defaultBar) => {
            const link = byName.get(bar.name)?.link;
            return link ? (
              <Anchor
                key={bar.name}
                component={Link}
                to={link.to as never}
                params={link.params as never}
                search={link.search as never}
                underline="never"
                aria-label={link.label}
              >
                {defaultBar}
              </Anchor>
            ) : (
              defaultBar
            );
          }}
        />
      )}
    </Figure>
  );
}
