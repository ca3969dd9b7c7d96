import { Badge, Tooltip } from '@mantine/core';
import { SYNC_STATUS_LABELS, type SyncStatusCode } from '@switchyard/contracts';

export const SYNC_STATUS_COLORS: Record<SyncStatusCode, string> = {
  0: 'gray',
  1: 'teal',
  2: 'yellow',
  3: 'red',
};

function asCode(code: number): SyncStatusCode {
  return code === 1 || code === 2 || code === 3 ? code : 0;
}

/** A listing's sync status (DESIGN §3); an error shows its message on hover and to screen readers. */
export function SyncStatusBadge({ code, error }: { code: number; error?: string | null }) {
  const status = asCode(code);
  const badge = (
    <Badge
      color={SYNC_STATUS_COLORS[status]}
      variant="light"
      style={{ flexShrink: 0 }}
      aria-label={error ? `${SYNC_STATUS_LABELS[status]}: ${error}` : undefined}
    >
      {SYNC_STATUS_LABELS[status]}
    </Badge>
  );
  return error ? (
    <Tooltip label={error} multiline maw={320} withArrow>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}
