import { Button, Group, Text } from '@mantine/core';

export interface PagerProps {
  total: number;
  limit: number;
  offset: number;
  onChange: (offset: number) => void;
  /** Names what is paged, for screen readers ("API keys", "Accounts"). */
  label: string;
  disabled?: boolean;
}

/** SPEC §2 generic tables: Previous and Next, disabled at the ends, with where the reader is. */
export function Pager({ total, limit, offset, onChange, label, disabled = false }: PagerProps) {
  if (total <= limit && offset === 0) return null;
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return (
    <Group justify="space-between" gap="sm" component="nav" aria-label={`${label} pages`}>
      <Text size="sm" c="dimmed" aria-live="polite">
        {first}–{last} of {total}
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
          disabled={disabled || offset + limit >= total}
          onClick={() => onChange(offset + limit)}
        >
          Next
        </Button>
      </Group>
    </Group>
  );
}
