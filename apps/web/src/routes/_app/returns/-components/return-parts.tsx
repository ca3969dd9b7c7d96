import { Badge, Tooltip } from '@mantine/core';
import { type Return, returnStatusDisplay } from '@switchyard/contracts';

const TONE_COLORS = { success: 'teal', danger: 'red', warning: 'yellow' } as const;

/** SPEC §4: Finished (success), Error (danger), Skipped (warning); any other status as it is. */
export function ReturnStatusBadge({ status, message }: { status: string; message?: string | null }) {
  const { label, tone } = returnStatusDisplay(status);
  const badge = (
    <Badge color={tone ? TONE_COLORS[tone] : 'gray'} variant="light" tabIndex={message ? 0 : undefined}>
      {label}
    </Badge>
  );
  return message ? (
    <Tooltip label={message} withArrow multiline w={300}>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}

/** SPEC §2: the items' return stores, each once, joined by commas. */
export function storesOf(ret: Pick<Return, 'items'>): string {
  return [...new Set(ret.items.map((i) => i.return_store_name ?? i.return_store).filter(Boolean))].join(', ');
}

/** SPEC §2: the receipt is the bill name, else the receipt number, else "(pending)". */
export function receiptOf(ret: Pick<Return, 'bill_name' | 'receipt_number'>): string {
  return ret.bill_name || ret.receipt_number || '(pending)';
}
