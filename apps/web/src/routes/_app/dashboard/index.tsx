import { Group, SegmentedControl, Stack, Title } from '@mantine/core';
import { DashboardGranularity, DashboardSearch, DashboardTimeframe } from '@switchyard/contracts';
import { createFileRoute, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { lazy, Suspense } from 'react';
import { GetStarted } from './-components/get-started.tsx';
import { MetricsSkeleton } from './-components/metrics-skeleton.tsx';

// The charts (and @mantine/charts with recharts) load with the dashboard, not in the app's first load.
const MetricsView = lazy(() => import('./-components/metrics-view.tsx'));

const SEARCH_DEFAULTS = DashboardSearch.parse({});

export const Route = createFileRoute('/_app/dashboard/')({
  validateSearch: DashboardSearch,
  search: { middlewares: [stripSearchParams(SEARCH_DEFAULTS)] },
  component: DashboardPage,
});

const TIMEFRAMES = [
  { value: '30d', label: '30 days' },
  { value: '6m', label: '6 months' },
  { value: '1y', label: '1 year' },
];
const GRANULARITIES = [
  { value: 'day', label: 'Day' },
  { value: 'week', label: 'Week' },
  { value: 'month', label: 'Month' },
  { value: 'year', label: 'Year' },
];

function DashboardPage() {
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <Title order={1}>Dashboard</Title>
        <Group gap="sm">
          <SegmentedControl
            aria-label="Timeframe"
            data={TIMEFRAMES}
            value={search.timeframe}
            onChange={(value) =>
              void navigate({ search: (prev) => ({ ...prev, timeframe: DashboardTimeframe.parse(value) }) })
            }
          />
          <SegmentedControl
            aria-label="Granularity"
            data={GRANULARITIES}
            value={search.granularity}
            onChange={(value) =>
              void navigate({ search: (prev) => ({ ...prev, granularity: DashboardGranularity.parse(value) }) })
            }
          />
        </Group>
      </Group>
      <GetStarted />
      <Suspense fallback={<MetricsSkeleton />}>
        <MetricsView search={search} />
      </Suspense>
    </Stack>
  );
}
