import { Button, Group, Text } from '@mantine/core';

export interface PagerProps {
  total: number;
  limit: number;
  offset: number;
  onChange: (offset: number) => void;
  /** Names what is paged, for screen readers ("API keys", "Accounts"). */
  label: string;
  disabled?: boolean;
  /** `total` is a lower bound (the server stopped counting): shown as "10,025+", and Next stays on. */
  totalIsLowerBound?: boolean;
}

/** SPEC §2 generic tables: Previous and Next, disabled at the ends, with where the reader is. */
export function Pager({
  total,
  limit,
  offset,
  onChange,
  label,
  disabled = false,
  totalIsLowerBound = false,
}: PagerProps) {
  if (total <= limit && offset === 0) return null;
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return (
    <Group justify="space-between" gap="sm" component="nav" aria-label={`${label} pages`}>
      <Text size="sm" c="dimmed" aria-live="polite">
        {first}–{last} of {totalIsLowerBound ? `${total.toLocaleString('en-US')}+` : total}
      </Text>
      <Group gap="xs">
        <Button
          variant="default"
          size="xs"
          disabled={disabled || offset === 0}
          onClick={() => onChange(Math.max(0, offset - limit))}
        >
          Previous
        </Button>
        <Button
          variant="default"
          size="xs"
          disabled={disabled || (offset + limit >= total && !totalIsLowerBound)}
          onClick={() => onChange(offset + limit)}
        >
          Next
        </Button>
      </Group>
    </Group>
  );
}
