import { Badge, Group, Progress, Text } from '@mantine/core';
import {
  SYNC_LIST_STALE_MS,
  SYNC_META_STALE_MS,
  type SyncRun,
  type SyncStatus,
  type SyncsListInput,
  type SyncTrigger,
} from '@switchyard/contracts';
import type { Trpc } from '../../../../lib/trpc.ts';

export const SYNC_STATUS_BADGES: Record<SyncStatus, { label: string; color: string }> = {
  queued: { label: 'Queued', color: 'gray' },
  running: { label: 'Running', color: 'blue' },
  succeeded: { label: 'Succeeded', color: 'teal' },
  partial: { label: 'Partly failed', color: 'orange' },
  failed: { label: 'Failed', color: 'red' },
};

export const SYNC_TRIGGER_LABELS: Record<SyncTrigger, string> = {
  webhook: 'Channel event',
  manual: 'Manual',
  schedule: 'Scheduled',
  retry: 'Retry',
  change: 'Stock change',
};

/** Queued and running runs are still moving: their screens poll. */
export const isLive = (run: Pick<SyncRun, 'status'>) => run.status === 'running' || run.status === 'queued';

/** How often a screen showing a live run reads it again. */
export const LIST_POLL_MS = 2000;
export const DETAIL_POLL_MS = 1000;

export function SyncStatusBadge({ status }: { status: SyncStatus }) {
  const badge = SYNC_STATUS_BADGES[status];
  return (
    <Badge color={badge.color} variant="light">
      {badge.label}
    </Badge>
  );
}

/** 850 ms, 12 s, 3 min 5 s, 1 h 2 min. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/** Handled of total; a bar while the run is live and its size is known. */
export function SyncProgress({ run }: { run: SyncRun }) {
  const text =
    run.total > 0
      ? `${run.processed.toLocaleString()} / ${run.total.toLocaleString()}`
      : run.processed.toLocaleString();
  if (!isLive(run) || run.total === 0) return <Text size="sm">{text}</Text>;
  const percent = Math.min(100, Math.round((run.processed / run.total) * 100));
  return (
    <Group gap="xs" wrap="nowrap" miw={140}>
      <Progress
        value={percent}
        animated
        style={{ flex: 1 }}
        aria-label={`Sync ${run.id} progress`}
        aria-valuenow={percent}
      />
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {text}
      </Text>
    </Group>
  );
}

const SKIP_BATCH = { trpc: { context: { skipBatch: true } } } as const;

/** SPEC §7 and §9: the sync list goes alone (not batched) and stays fresh 5 minutes, but polls while a run is live. */
export function syncListOptions(trpc: Trpc, input: SyncsListInput) {
  return {
    ...trpc.syncs.list.queryOptions(input, SKIP_BATCH),
    staleTime: SYNC_LIST_STALE_MS,
    refetchInterval: (query: { state: { data?: { results: SyncRun[] } } }) =>
      query.state.data?.results.some(isLive) ? LIST_POLL_MS : false,
  };
}

/** SPEC §9: sync counts and types stay fresh 10 minutes (polled alongside a live list). */
export function syncCountOptions(trpc: Trpc, input: SyncsListInput, live: boolean) {
  return {
    ...trpc.syncs.count.queryOptions(input),
    staleTime: SYNC_META_STALE_MS,
    refetchInterval: live ? LIST_POLL_MS : (false as const),
  };
}

export function syncTypesOptions(trpc: Trpc) {
  return { ...trpc.syncs.types.queryOptions(), staleTime: SYNC_META_STALE_MS };
}
