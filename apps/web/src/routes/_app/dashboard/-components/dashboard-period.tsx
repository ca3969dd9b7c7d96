import { Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { DashboardGranularity, type DashboardSearch, DashboardTimeframe } from '@switchyard/contracts';
import { getRouteApi } from '@tanstack/react-router';
import { useId } from 'react';

const route = getRouteApi('/_app/dashboard/');

const TIMEFRAMES: { value: DashboardSearch['timeframe']; label: string }[] = [
  { value: '30d', label: 'Last 30 days' },
  { value: '6m', label: 'Last 6 months' },
  { value: '1y', label: 'Last year' },
];

const GRANULARITIES: { value: DashboardSearch['granularity']; label: string }[] = [
  { value: 'day', label: 'Day' },
  { value: 'week', label: 'Week' },
  { value: 'month', label: 'Month' },
  { value: 'year', label: 'Year' },
];

/** The period the dashboard shows, held in the address so a link reproduces the view. */
export function DashboardPeriod() {
  const { timeframe, granularity } = route.useSearch();
  const navigate = route.useNavigate();
  const timeframeLabel = useId();
  const granularityLabel = useId();

  return (
    <Group gap="xl" align="flex-end">
      <Stack gap={4}>
        <Text id={timeframeLabel} size="sm" fw={500}>
          Timeframe
        </Text>
        <SegmentedControl
          aria-labelledby={timeframeLabel}
          data={TIMEFRAMES}
          value={timeframe}
          onChange={(value) => {
            const next = DashboardTimeframe.safeParse(value);
            if (next.success) void navigate({ search: (prev) => ({ ...prev, timeframe: next.data }) });
          }}
        />
      </Stack>
      <Stack gap={4}>
        <Text id={granularityLabel} size="sm" fw={500}>
          Granularity
        </Text>
        <SegmentedControl
          aria-labelledby={granularityLabel}
          data={GRANULARITIES}
          value={granularity}
          onChange={(value) => {
            const next = DashboardGranularity.safeParse(value);
            if (next.success) void navigate({ search: (prev) => ({ ...prev, granularity: next.data }) });
          }}
        />
      </Stack>
    </Group>
  );
}
