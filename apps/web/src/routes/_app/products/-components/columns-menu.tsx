import { Button, Checkbox, Popover, Stack, Text } from '@mantine/core';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useColumnsFilter } from '../../../../lib/use-columns-filter.ts';
import { PRODUCT_COLUMNS, type ProductColumnKey, visibleColumns } from './product-columns.ts';

/** The columns of one channel's list, chosen here and kept in the user's columnsFilter for that channel. */
export function useProductColumns(channelId: string) {
  const { columns, setColumns, pending } = useColumnsFilter(channelId);
  return { visible: visibleColumns(columns), setColumns, pending };
}

export function ColumnsMenu({
  visible,
  setColumns,
  pending,
}: {
  visible: Set<ProductColumnKey>;
  setColumns: (columns: string[]) => Promise<unknown>;
  pending: boolean;
}) {
  const toggle = (key: ProductColumnKey, on: boolean) => {
    const next = PRODUCT_COLUMNS.map((column) => column.key).filter((k) => (k === key ? on : visible.has(k)));
    setColumns(next).catch((error: unknown) => notify.error(`Could not save your columns: ${errorMessage(error)}`));
  };
  return (
    <Popover position="bottom-end" withArrow shadow="md" trapFocus>
      <Popover.Target>
        <Button variant="default" size="xs" loading={pending}>
          Columns
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" role="group" aria-label="Columns to show">
          <Text size="xs" c="dimmed">
            Kept for this channel
          </Text>
          {PRODUCT_COLUMNS.map((column) => {
            const fixed = 'fixed' in column && column.fixed;
            return (
              <Checkbox
                key={column.key}
                label={column.label}
                checked={visible.has(column.key)}
                disabled={fixed}
                onChange={(event) => toggle(column.key, event.currentTarget.checked)}
              />
            );
          })}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
