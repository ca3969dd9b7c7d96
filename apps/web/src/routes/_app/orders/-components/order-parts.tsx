import { Badge, Tooltip } from '@mantine/core';
import {
  ALLOCATION_STATUSES,
  type AllocationStatus,
  FULFILLMENT_TYPE_LABELS,
  type FulfillmentType,
  isFlaggingAllocation,
  type OrderStatus,
  orderStatusLabel,
} from '@switchyard/contracts';

const STATUS_COLORS: Record<OrderStatus, string> = {
  0: 'gray',
  1: 'blue',
  2: 'cyan',
  3: 'teal',
  4: 'grape',
  5: 'teal',
  6: 'yellow',
  7: 'dark',
  8: 'orange',
  9: 'red',
};

/**
 * A badge's label gives way (ellipsis) when its cell is narrow, and a table short of room squeezed "Open" to "OP…":
 * order badges keep their whole word and let the table find the room elsewhere.
 */
const WHOLE = 'max-content';

export function OrderStatusBadge({ status }: { status: number }) {
  return (
    <Badge color={STATUS_COLORS[status as OrderStatus] ?? 'gray'} variant="light" miw={WHOLE}>
      {orderStatusLabel(status)}
    </Badge>
  );
}

/** A curbside pickup means someone waits in the car park: it is the one type drawn filled, so it stands out. */
export function FulfillmentBadge({ type }: { type: FulfillmentType }) {
  if (type === 'curbside_pickup')
    return (
      <Badge color="orange" variant="filled" miw={WHOLE}>
        {FULFILLMENT_TYPE_LABELS[type]}
      </Badge>
    );
  return (
    <Badge color={type === 'pickup' ? 'grape' : 'gray'} variant="light" miw={WHOLE}>
      {FULFILLMENT_TYPE_LABELS[type]}
    </Badge>
  );
}

export const FLAGGED_HINT = 'A line has no stock, no location, was rejected by its store or has an unknown SKU.';

export function FlaggedBadge() {
  return (
    <Tooltip label={FLAGGED_HINT} withArrow multiline w={260}>
      <Badge color="red" variant="filled" tabIndex={0} miw={WHOLE}>
        Flagged
      </Badge>
    </Tooltip>
  );
}

export const allocationStatusLabel = (status: number) =>
  ALLOCATION_STATUSES[status as AllocationStatus] ?? `Status ${status}`;

/** Allocation statuses 0, 4 and 5 need the merchant (DESIGN §3): red; the others move along on their own. */
export function AllocationBadge({ status, released = false }: { status: number; released?: boolean }) {
  // An allocation whose units went back (its order cancelled) is still "Allocated" by its status; it holds nothing.
  if (released)
    return (
      <Badge color="gray" variant="light">
        Released
      </Badge>
    );
  const attention = isFlaggingAllocation(status);
  return (
    <Badge color={attention ? 'red' : status === 3 ? 'teal' : 'blue'} variant={attention ? 'filled' : 'light'}>
      {allocationStatusLabel(status)}
    </Badge>
  );
}
