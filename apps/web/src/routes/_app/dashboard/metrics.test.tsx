import type { Metrics } from '@switchyard/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { allowConsole } from '../../../test/console.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError } from '../../../test/trpc-stub.ts';
import { changeLabel, durationLabel, periodLabel } from './-components/metrics-format.ts';

const money = (minor: number) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(minor / 100);

const totals = (sales: number, orders: number, units: number) => ({
  sales,
  orders,
  units,
  averageOrderValue: orders ? Math.round(sales / orders) : 0,
  returns: 1,
  returnUnits: 1,
  returnTotal: 2500,
  returnsRate: units ? 1 / units : 0,
  fulfilled: 2,
  fulfillmentSeconds: 5400,
});

function metrics(input: { timeframe?: string; granularity?: string } = {}): Metrics {
  return {
    timeframe: (input.timeframe ?? '30d') as Metrics['timeframe'],
    granularity: (input.granularity ?? 'day') as Metrics['granularity'],
    currency: 'EUR',
    timezone: 'Europe/Paris',
    from: '2026-10-28',
    to: '2026-11-26',
    previousFrom: '2026-09-28',
    previousTo: '2026-10-27',
    totals: totals(12_345, 3, 8),
    previousTotals: totals(10_000, 2, 4),
    series: [
      {
        period: '2026-11-25',
        previousPeriod: '2026-10-26',
        sales: 12_345,
        orders: 3,
        units: 8,
        averageOrderValue: 4115,
        returnUnits: 1,
        fulfilled: 2,
        fulfillmentSeconds: 5400,
        previousSales: 10_000,
        previousOrders: 2,
        previousUnits: 4,
        previousAverageOrderValue: 5000,
      },
    ],
    byChannel: [
      { id: 'chn_1', name: 'Paris web shop', type: 'shopify', sales: 9_000, orders: 2, units: 5 },
      { id: 'chn_2', name: 'Counter', type: 'square', sales: 3_345, orders: 1, units: 3 },
    ],
    byLocation: [{ id: 'loc_1', name: 'Rue de Rivoli', type: null, sales: 12_345, orders: 3, units: 8 }],
    topSkus: [{ sku: 'TEE-RED-M', units: 5, sales: 9_000 }],
    stock: { skus: 10, outOfStock: 2, lowStock: 3, lowStockThreshold: 5, onHand: 120, sellThrough: 8 / 128 },
    sync: {
      pushLagSeconds: 0,
      pendingChanges: 0,
      lastPushAt: new Date('2026-11-26T15:42:30Z'),
      failedItemsToday: 4,
      failedRunsToday: 1,
    },
  };
}

/** jsdom lays nothing out: the charts' containers get a size, so recharts draws them. */
function sizeCharts() {
  const measure = HTMLElement.prototype.getBoundingClientRect;
  vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(function (this: HTMLElement) {
    return this.classList.contains('recharts-responsive-container')
      ? DOMRect.fromRect({ width: 480, height: 200 })
      : measure.call(this);
  });
}

describe('dashboard figures', { timeout: 60_000 }, () => {
  beforeEach(() => {
    // jsdom lays nothing out, so recharts measures its containers as 0 × 0 and says so.
    allowConsole('warn', /The width\(0\) and height\(0\) of chart/);
  });

  it('shows the figures in the account’s currency, each with a link to the list behind it, and keeps the checklist', async () => {
    const calls: unknown[] = [];
    await renderApp('/dashboard', {
      signedIn: { status: 'active' },
      handlers: {
        'metrics.get': (input) => {
          calls.push(input);
          return metrics(input as object);
        },
        'channels.list': () => [],
      },
    });
    const sales = await screen.findByRole('region', { name: 'Sales' }, { timeout: 15_000 });
    expect(screen.getByText(/^Last 30 days \(Oct 28 – Nov 26, 2026, Europe\/Paris\)\./)).toBeInTheDocument();
    expect(within(sales).getByText(money(12_345))).toBeInTheDocument();
    expect(within(sales).getByText('+23% vs previous')).toBeInTheDocument();
    expect(within(sales).getByRole('link', { name: 'Orders' })).toHaveAttribute('href', '/orders?status=-1');
    expect(screen.getByRole('region', { name: 'Get started' })).toBeInTheDocument();
    const byChannel = screen.getByRole('region', { name: 'Sales by channel' });
    expect(within(byChannel).getByText('Paris web shop')).toBeInTheDocument();
    expect(within(byChannel).getByText(money(9_000))).toBeInTheDocument();
    const top = screen.getByRole('region', { name: 'Top SKUs' });
    expect(within(top).getByRole('link', { name: 'Orders with TEE-RED-M' })).toHaveAttribute(
      'href',
      '/orders?status=-1&search=TEE-RED-M',
    );
    // A store's bar leads to the store; a channel's bars link nowhere of their own.
    const byLocation = screen.getByRole('region', { name: 'Sales by location' });
    expect(within(byLocation).getByRole('link', { name: /Rue de Rivoli/ })).toHaveAttribute('href', '/locations/loc_1');
    expect(within(byChannel).queryByRole('link', { name: /Paris web shop/ })).not.toBeInTheDocument();
    // A bar's name stays on one line, in the colour scheme's own light fill and text (a fixed pale shade left white
    // names on it unreadable in dark mode).
    for (const name of ['Paris web shop', 'Rue de Rivoli', 'TEE-RED-M']) {
      const bar = screen.getByText(name, { selector: '.mantine-BarsList-barLabel' });
      expect(bar.style.whiteSpace).toBe('nowrap');
      expect(bar.style.backgroundColor).toMatch(/^var\(--mantine-color-[a-z]+-light\)$/);
      expect(bar.style.color).toMatch(/^var\(--mantine-color-[a-z]+-light-color\)$/);
    }
    expect(within(screen.getByRole('region', { name: 'Returns rate' })).getByText('12.5%')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Fulfillment time' })).getByText('1.5 h')).toBeInTheDocument();
    // The queue reads its tab from its filter: a top-level ?scope=shipped opened the "To ship" tab.
    const shipped = within(screen.getByRole('region', { name: 'Fulfillment time' })).getByRole('link', {
      name: 'Shipped orders',
    });
    expect(new URL(shipped.getAttribute('href') ?? '', 'http://x').searchParams.get('filter')).toBe(
      JSON.stringify({ scope: 'shipped' }),
    );
    const stock = screen.getByRole('region', { name: 'Stock health' });
    expect(within(stock).getByText('2 out of stock')).toBeInTheDocument();
    // Notifications are per location; the dashboard says its count is not.
    expect(within(stock).getByText('Counted over all your locations together.')).toBeInTheDocument();
    const sync = screen.getByRole('region', { name: 'Sync health' });
    expect(within(sync).getByText(/4 failed items today in 1 run/)).toBeInTheDocument();
    // The last push in the app's own date format (medium date, short time), as on every other screen.
    const pushedAt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
      new Date('2026-11-26T15:42:30Z'),
    );
    expect(within(sync).getByText(`0 stock changes waiting to push; last push ${pushedAt}.`)).toBeInTheDocument();
    expect(within(sync).getByRole('link', { name: 'Syncs with errors' })).toHaveAttribute(
      'href',
      '/syncs?has_errors=true',
    );
    expect(calls[0]).toEqual({ timeframe: '30d', granularity: 'day' });
  });

  it('reads the channel list once an hour, as every other screen does, not again on each visit', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let lists = 0;
    const { router } = await renderApp('/dashboard', {
      signedIn: { status: 'active' },
      handlers: {
        'metrics.get': (input) => metrics(input as object),
        'channels.list': () => {
          lists++;
          return [];
        },
      },
    });
    await screen.findByRole('region', { name: 'Sales' }, { timeout: 15_000 });
    await waitFor(() => expect(lists).toBeGreaterThan(0));
    const before = lists;
    await act(() => vi.advanceTimersByTimeAsync(2 * 60_000));
    await act(() => router.navigate({ to: '/help' }));
    await act(() => router.navigate({ to: '/dashboard' }));
    await screen.findByRole('region', { name: 'Sales' }, { timeout: 15_000 });
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(lists).toBe(before);
  });

  it('counts returns, units and orders in the notes in the singular when there is one', async () => {
    const one = { ...totals(2500, 1, 1), returns: 1, returnUnits: 1, fulfilled: 1 };
    await renderApp('/dashboard', {
      signedIn: { status: 'active' },
      handlers: {
        'metrics.get': (input) => ({ ...metrics(input as object), totals: one }),
        'channels.list': () => [],
      },
    });
    const returns = await screen.findByRole('region', { name: 'Returns rate' }, { timeout: 15_000 });
    expect(
      within(returns).getByText(`1 of 1 unit came back in 1 return (${money(2500)} refunded).`),
    ).toBeInTheDocument();
    const fulfillment = screen.getByRole('region', { name: 'Fulfillment time' });
    expect(
      within(fulfillment).getByText('Placed to shipped or picked up, on average over 1 order.'),
    ).toBeInTheDocument();
  });

  it('lists a chart’s series in its legend in the order the chart draws them: this period, then the previous', async () => {
    sizeCharts();
    const m = metrics();
    const [point] = m.series as [Metrics['series'][number]];
    // Two buckets, so the areas and lines are drawn as such.
    const twoPoints = { ...m, series: [{ ...point, period: '2026-11-24', previousPeriod: '2026-10-25' }, point] };
    await renderApp('/dashboard', {
      signedIn: { status: 'active' },
      handlers: { 'metrics.get': () => twoPoints, 'channels.list': () => [] },
    });
    await screen.findByRole('region', { name: 'Sales' }, { timeout: 15_000 });
    // Sorted by name, the legend had "previousSales" before "sales" and "previousUnits" before "units".
    for (const [figure, label] of [
      ['Sales', 'Sales'],
      ['Orders', 'Orders'],
      ['Average order value', 'Average order value'],
      ['Units sold', 'Units'],
    ] as const) {
      const region = screen.getByRole('region', { name: figure });
      await waitFor(() =>
        expect(
          within(region)
            .getAllByText(/./, { selector: '[class*="legendItemName"]' })
            .map((item) => item.textContent),
        ).toEqual([label, 'Previous period']),
      );
      // The chart draws this period's series first (the left bar of each pair), the previous period's in grey after.
      const drawn = [...region.querySelectorAll('g.recharts-area, g.recharts-bar, g.recharts-line')].map((series) =>
        /--mantine-color-gray-\d/.test(series.innerHTML) ? 'Previous period' : label,
      );
      expect(drawn, figure).toEqual([label, 'Previous period']);
    }
  });

  it('leaves a gap in the average order value where a day had no orders, instead of a fall to nothing', async () => {
    sizeCharts();
    const m = metrics();
    const [point] = m.series as [Metrics['series'][number]];
    const empty = { ...point, sales: 0, orders: 0, units: 0, averageOrderValue: 0, previousOrders: 0 };
    const series = [
      { ...point, period: '2026-11-23' },
      { ...empty, period: '2026-11-24', previousAverageOrderValue: 0, previousSales: 0 },
      { ...point, period: '2026-11-25' },
    ];
    await renderApp('/dashboard', {
      signedIn: { status: 'active' },
      handlers: { 'metrics.get': () => ({ ...m, series }), 'channels.list': () => [] },
    });
    const region = await screen.findByRole('region', { name: 'Average order value' }, { timeout: 15_000 });
    await waitFor(() => expect(region.querySelectorAll('path.recharts-line-curve').length).toBeGreaterThan(0));
    // Two pieces of line (two moves of the pen) for this period and for the previous one, not one line through 0.
    for (const curve of region.querySelectorAll('path.recharts-line-curve')) {
      expect(curve.getAttribute('d')?.match(/M/g)).toHaveLength(2);
    }
  });

  it('ticks a month of days once a week, and rates and times at even round steps', async () => {
    sizeCharts();
    const m = metrics();
    const [point] = m.series as [Metrics['series'][number]];
    // 30 days to Nov 26: a rate up to 12.5% and times up to 38.5 h, which recharts ticked at 0, 4, 8, 16 and 0, 10, 20, 40.
    const series = Array.from({ length: 30 }, (_, i) => ({
      ...point,
      period: new Date(Date.UTC(2026, 9, 28 + i)).toISOString().slice(0, 10),
      units: 8,
      returnUnits: i % 2,
      fulfillmentSeconds: (2 + (i % 7) * 6.1) * 3600,
    }));
    await renderApp('/dashboard', {
      signedIn: { status: 'active' },
      handlers: { 'metrics.get': () => ({ ...m, series }), 'channels.list': () => [] },
    });
    await screen.findByRole('region', { name: 'Sales' }, { timeout: 15_000 });
    const ticks = (figure: string, axis: 'x' | 'y') =>
      [
        ...screen
          .getByRole('region', { name: figure })
          .querySelectorAll(`.recharts-${axis}Axis-tick-labels .recharts-cartesian-axis-tick-value`),
      ].map((tick) => tick.textContent);
    const weekly = ['Oct 29', 'Nov 5', 'Nov 12', 'Nov 19', 'Nov 26'];
    await waitFor(() => expect(ticks('Returns rate', 'x')).toEqual(weekly));
    expect(ticks('Returns rate', 'y')).toEqual(['0%', '5%', '10%', '15%']);
    await waitFor(() => expect(ticks('Fulfillment time', 'x')).toEqual(weekly));
    expect(ticks('Fulfillment time', 'y')).toEqual(['0 h', '12 h', '24 h', '36 h', '48 h']);
    expect(ticks('Orders', 'x')).toEqual(weekly);
  });

  it('keeps timeframe and granularity in the address and asks for them', async () => {
    const calls: { timeframe: string; granularity: string }[] = [];
    const { router } = await renderApp('/dashboard?timeframe=1y&granularity=month', {
      signedIn: { status: 'active' },
      handlers: {
        'metrics.get': (input) => {
          calls.push(input as (typeof calls)[number]);
          return metrics(input as object);
        },
        'channels.list': () => [],
      },
    });
    await screen.findByRole('region', { name: 'Sales' }, { timeout: 15_000 });
    expect(calls.at(-1)).toEqual({ timeframe: '1y', granularity: 'month' });
    await userEvent.click(screen.getByRole('radio', { name: 'Week' }));
    await waitFor(() => expect(router.state.location.search).toMatchObject({ timeframe: '1y', granularity: 'week' }));
    await waitFor(() => expect(calls.at(-1)).toEqual({ timeframe: '1y', granularity: 'week' }));
    await userEvent.click(screen.getByRole('radio', { name: '30 days' }));
    // The defaults leave the address.
    await waitFor(() => expect(router.state.location.href).toBe('/dashboard?granularity=week'));
  });

  it('says when there were no orders, and shows a failure with a retry', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let fail = true;
    await renderApp('/dashboard', {
      signedIn: { status: 'active' },
      handlers: {
        'metrics.get': (input) => {
          if (fail) throw new ProcedureError('BAD_REQUEST', 'The figures are resting');
          const m = metrics(input as object);
          return { ...m, totals: totals(0, 0, 0), previousTotals: totals(0, 0, 0), byChannel: [], topSkus: [] };
        },
        'channels.list': () => [],
      },
    });
    await screen.findByRole('heading', { name: 'Dashboard' });
    // The query is tried again (3 retries with back-off: 1 s, 2 s, 4 s) before the failure shows.
    await act(() => vi.advanceTimersByTimeAsync(8_000));
    expect(await screen.findByText('The figures are resting', undefined, { timeout: 15_000 })).toBeInTheDocument();
    vi.useRealTimers();
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No orders in this period yet')).toBeInTheDocument();
    expect(
      within(screen.getByRole('region', { name: 'Sales by channel' })).getByText('No sales in this period.'),
    ).toBeInTheDocument();
  });
});

describe('metric labels', () => {
  it('labels buckets by granularity, changes and durations', () => {
    expect(periodLabel('2026-03-04', 'day')).toBe('Mar 4');
    expect(periodLabel('2026-03-01', 'month')).toBe('Mar 2026');
    expect(periodLabel('2026-01-01', 'year')).toBe('2026');
    expect(changeLabel(120, 100)).toBe('+20%');
    expect(changeLabel(80, 100)).toBe('−20%');
    expect(changeLabel(5, 0)).toBeNull();
    expect(durationLabel(1800)).toBe('30 min');
    expect(durationLabel(5400)).toBe('1.5 h');
    expect(durationLabel(3 * 86400)).toBe('3.0 days');
  });
});
