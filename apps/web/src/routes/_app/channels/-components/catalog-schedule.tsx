import { Button, Group, Select, Skeleton, Text } from '@mantine/core';
import type { CatalogSyncSchedule } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { api } from '../../../../lib/api.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { showToast } from '../../../../lib/toast.ts';

type WireSchedule = Omit<CatalogSyncSchedule, 'nextRunAt'> & { nextRunAt: string | null };

const scheduleKey = ['rest', 'catalogSync'] as const;
const OFF = 'off';
const HOURS = [
  { value: OFF, label: 'Off' },
  ...Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: `${String(h).padStart(2, '0')}:00` })),
];

/** SPEC §7 frontend `POST catalogSync` (hour): the daily import of every connected channel's catalog. */
export function CatalogSchedule() {
  const queryClient = useQueryClient();
  const schedule = useQuery({
    queryKey: scheduleKey,
    queryFn: () => api.frontend.get<WireSchedule>('catalogSync'),
  });
  const [hour, setHour] = useState<string>(OFF);
  useEffect(() => {
    if (schedule.data) setHour(schedule.data.hour === null ? OFF : String(schedule.data.hour));
  }, [schedule.data]);
  const save = useMutation({
    mutationFn: (value: string) =>
      api.frontend.post<WireSchedule>('catalogSync', { hour: value === OFF ? null : Number(value) }),
    onSuccess: (saved) => {
      queryClient.setQueryData(scheduleKey, saved);
      showToast({
        type: 'success',
        title: saved.hour === null ? 'Daily catalog import switched off.' : 'Daily catalog import saved.',
      });
    },
    onError: (err) =>
      showToast({ type: 'error', title: 'Could not save the schedule', description: errorMessage(err) }),
  });
  const current = schedule.data ? (schedule.data.hour === null ? OFF : String(schedule.data.hour)) : OFF;

  return (
    <SectionCard
      title="Daily catalog import"
      description="Once a day, every connected channel's catalog is imported: new products are added and changes taken in."
    >
      {schedule.isPending ? (
        <Skeleton height={60} />
      ) : schedule.isError ? (
        <QueryError
          title="Could not load the schedule"
          error={schedule.error}
          onRetry={schedule.refetch}
          retrying={schedule.isFetching}
        />
      ) : (
        <Group align="flex-end" gap="sm" wrap="wrap">
          <Select
            label="Import at"
            description={`Local time (${schedule.data.timezone})`}
            data={HOURS}
            value={hour}
            onChange={(value) => setHour(value ?? OFF)}
            allowDeselect={false}
            w={200}
          />
          <Button onClick={() => save.mutate(hour)} loading={save.isPending} disabled={hour === current}>
            Save
          </Button>
          <Text size="sm" c="dimmed">
            {schedule.data.nextRunAt ? `Next run ${formatDateTime(schedule.data.nextRunAt)}` : 'Not scheduled'}
          </Text>
        </Group>
      )}
    </SectionCard>
  );
}
