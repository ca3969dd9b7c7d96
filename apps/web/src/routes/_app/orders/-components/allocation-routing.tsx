import { Alert, Anchor, Button, Group, Modal, Radio, Select, Stack, Text, Textarea } from '@mantine/core';
import {
  type AllocationUpdateResult,
  type OrderAllocation,
  type OrderLine,
  type OrderRoutingDecisions,
  ReassignAllocationInput,
  RejectAllocationInput,
  type RoutingDecision,
  type TraceLine,
  type UpdateLocationOrderItemInput,
} from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { TraceLineView, versionWords } from '../../../../components/routing-trace.tsx';
import { api } from '../../../../lib/api.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { retryUnlessRefused } from '../../../../lib/query-client.ts';
import { notify } from '../../../../lib/toast.ts';
import { type Trpc, useTRPC } from '../../../../lib/trpc.ts';
import { refreshOrders } from './order-api.ts';

// "Why this store" from the stored routing decisions, and what a person can do to an allocation: reject it
// for the store (or report it short), or move it to another location by hand.

export function decisionsOptions(trpc: Trpc, orderId: string) {
  return { ...trpc.routing.decisions.queryOptions({ orderId }), retry: retryUnlessRefused };
}

/** The newest decision that wrote this allocation, and its trace of the allocation's line. */
export function traceFor(
  decisions: OrderRoutingDecisions | undefined,
  allocationId: string,
  lineId: string,
): { decision: RoutingDecision; line: TraceLine } | null {
  for (const decision of decisions?.decisions ?? []) {
    if (!decision.allocationIds.includes(allocationId)) continue;
    const line = decision.trace.lines.find((l) => l.lineId === lineId);
    if (line) return { decision, line };
  }
  return null;
}

const DECISION_WORDS: Record<Exclude<RoutingDecision['kind'], 'reassign'>, string> = {
  initial: 'Routed',
  reroute: 'Routed again',
};

/** A short line of plain words under an allocation, with the whole trace one click away. */
export function WhyThisStore({
  orderId,
  allocation,
  line,
}: {
  orderId: string;
  allocation: OrderAllocation;
  line: OrderLine;
}) {
  const trpc = useTRPC();
  const decisions = useQuery(decisionsOptions(trpc, orderId));
  const [open, setOpen] = useState(false);
  const found = traceFor(decisions.data, allocation.id, line.id);
  if (decisions.isPending || !found) return null;
  const { decision, line: traced } = found;
  const how =
    decision.kind === 'reassign'
      ? `Moved by hand${decision.actor ? ` by ${decision.actor}` : ''}`
      : `${DECISION_WORDS[decision.kind]} by ${versionWords(decision.ruleSetVersion)}${decision.actor ? ` · asked by ${decision.actor}` : ''}`;
  return (
    <Stack gap={2}>
      <Text size="xs">
        <Text span size="xs" fw={600}>
          Why this store:{' '}
        </Text>
        {traced.explanation}
      </Text>
      <Group gap={6}>
        <Text size="xs" c="dimmed">
          {how}
        </Text>
        <Anchor component="button" type="button" size="xs" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {open ? 'Hide the details' : 'Every location and rule'}
        </Anchor>
      </Group>
      {open ? (
        <Stack gap={4} mt={4}>
          <Text size="xs" c="dimmed">
            {decision.trace.destination.note}
          </Text>
          <TraceLineView line={traced} title={`${line.sku ?? line.title} × ${traced.quantity}`} detailsOnly />
        </Stack>
      ) : null}
    </Stack>
  );
}

/** The result as REST answers it: JSON, its dates as strings (only the allocations' names are read here). */
type WireUpdateResult = Pick<AllocationUpdateResult, 'orderId' | 'flagged'> & {
  allocations: Pick<AllocationUpdateResult['allocations'][number], 'locationId' | 'locationName' | 'status'>[];
};

/** SPEC §7: a reject, short report or reassign is the frontend call `POST shipping/updateLocationOrderItem`. */
export function updateLocationOrderItem(input: UpdateLocationOrderItemInput) {
  return api.frontend.post<WireUpdateResult>('shipping/updateLocationOrderItem', input);
}

/** After a reject or reassign: the order (its allocations, flag and timeline) and its decisions are read again. */
async function refreshAfterRouting(queryClient: ReturnType<typeof useQueryClient>, trpc: Trpc, orderId: string) {
  await Promise.all([
    refreshOrders(queryClient, trpc),
    queryClient.invalidateQueries(trpc.routing.decisions.queryFilter({ orderId })),
  ]);
}

/** Reject (for the store) or reassign an allocation; shown where the allocation allows it. */
export function AllocationActions({
  orderId,
  allocation,
  line,
}: {
  orderId: string;
  allocation: OrderAllocation;
  line: OrderLine;
}) {
  const [dialog, setDialog] = useState<'reject' | 'reassign' | null>(null);
  const canReject = allocation.status === 1;
  const canReassign = [0, 1, 4, 5].includes(allocation.status);
  if (!canReject && !canReassign) return null;
  const what = `${line.sku ?? line.title} at ${allocation.locationName ?? 'no location'}`;
  return (
    <>
      <Group gap={4}>
        {canReject ? (
          <Button
            size="compact-xs"
            variant="light"
            color="red"
            onClick={() => setDialog('reject')}
            aria-label={`Reject ${what}`}
          >
            Reject
          </Button>
        ) : null}
        {canReassign ? (
          <Button
            size="compact-xs"
            variant="default"
            onClick={() => setDialog('reassign')}
            aria-label={`Reassign ${what}`}
          >
            Reassign
          </Button>
        ) : null}
      </Group>
      <Modal opened={dialog === 'reject'} onClose={() => setDialog(null)} title={`Reject ${what}?`}>
        {dialog === 'reject' ? (
          <RejectForm orderId={orderId} allocation={allocation} onDone={() => setDialog(null)} />
        ) : null}
      </Modal>
      <Modal opened={dialog === 'reassign'} onClose={() => setDialog(null)} title={`Reassign ${what}`}>
        {dialog === 'reassign' ? (
          <ReassignForm orderId={orderId} allocation={allocation} onDone={() => setDialog(null)} />
        ) : null}
      </Modal>
    </>
  );
}

function RejectForm({
  orderId,
  allocation,
  onDone,
}: {
  orderId: string;
  allocation: OrderAllocation;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<'5' | '4'>('5');
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const reject = useMutation({
    mutationFn: (input: UpdateLocationOrderItemInput) => updateLocationOrderItem(input),
    onSuccess: async (result: WireUpdateResult) => {
      const placed = result.allocations.filter((a) => a.status === 1 && a.locationId !== allocation.locationId);
      notify.success(
        placed.length > 0
          ? `Routed again: now at ${[...new Set(placed.map((a) => a.locationName ?? 'a location'))].join(', ')}`
          : 'No other location can take the line: the order is flagged',
      );
      onDone();
      await refreshAfterRouting(queryClient, trpc, orderId);
    },
  });
  return (
    <form
      aria-label="Reject the line"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        // Naming the store guards against rejecting a line that was routed elsewhere meanwhile.
        const parsed = RejectAllocationInput.safeParse({
          allocationId: allocation.id,
          status: Number(status),
          reason,
          locationId: allocation.locationId ?? undefined,
        });
        if (!parsed.success) {
          setReasonError(
            parsed.error.issues.find((i) => i.path[0] === 'reason')?.message ?? parsed.error.issues[0]?.message ?? null,
          );
          return;
        }
        setReasonError(null);
        reject.mutate({
          action: parsed.data.status === 5 ? 'reject' : 'short',
          id: parsed.data.allocationId,
          reason: parsed.data.reason,
          ...(parsed.data.locationId ? { location_id: parsed.data.locationId } : {}),
        });
      }}
    >
      <Stack gap="md">
        <Text size="sm">
          {allocation.locationName ?? 'The store'} will not fulfil this line. Its units there are released and the line
          is routed again by your rules without {allocation.locationName ?? 'that store'}.
        </Text>
        <Radio.Group label="What happened" value={status} onChange={(value) => setStatus(value as '5' | '4')}>
          <Stack gap={6} mt={6}>
            <Radio value="5" label="The store rejects the line" />
            <Radio value="4" label="The store is short: the stock is not there" />
          </Stack>
        </Radio.Group>
        <Textarea
          label="Reason"
          required
          description="Shown on the order's timeline"
          maxLength={500}
          rows={2}
          value={reason}
          onChange={(event) => {
            setReason(event.currentTarget.value);
            if (reasonError) setReasonError(null);
          }}
          error={reasonError}
          data-autofocus
        />
        {reject.isError ? (
          <Alert color="red" variant="light" title="The line was not rejected" role="alert">
            {errorMessage(reject.error)}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" color="red" loading={reject.isPending}>
            Reject and route again
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function ReassignForm({
  orderId,
  allocation,
  onDone,
}: {
  orderId: string;
  allocation: OrderAllocation;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const locations = useQuery(trpc.routing.locations.queryOptions());
  const [locationId, setLocationId] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [locationError, setLocationError] = useState<string | null>(null);
  const reassign = useMutation({
    mutationFn: (input: UpdateLocationOrderItemInput) => updateLocationOrderItem(input),
    onSuccess: async (result: WireUpdateResult) => {
      const now = result.allocations.find((a) => a.locationId === locationId);
      notify.success(`Moved to ${now?.locationName ?? 'the new location'}`);
      onDone();
      await refreshAfterRouting(queryClient, trpc, orderId);
    },
  });
  const options = (locations.data ?? [])
    .filter((l) => l.id !== allocation.locationId)
    .map((l) => ({
      value: l.id,
      label: `${l.name}${l.enabled ? '' : ' (disabled)'}`,
      disabled: !l.enabled,
    }));
  return (
    <form
      aria-label="Reassign the line"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const parsed = ReassignAllocationInput.safeParse({
          allocationId: allocation.id,
          locationId: locationId ?? '',
          reason: reason.trim() || undefined,
        });
        if (!parsed.success) {
          setLocationError('Choose the location to send it from');
          return;
        }
        setLocationError(null);
        reassign.mutate({
          action: 'reassign',
          id: parsed.data.allocationId,
          location_id: parsed.data.locationId,
          ...(parsed.data.reason ? { reason: parsed.data.reason } : {}),
        });
      }}
    >
      <Stack gap="md">
        <Text size="sm">
          {allocation.quantity === 1 ? 'The unit moves' : `The ${allocation.quantity} units move`} to the location you
          choose, if it has {allocation.quantity === 1 ? 'it' : 'them'} available; the stock held at{' '}
          {allocation.locationName ?? 'the current location'} is released.
        </Text>
        <Select
          label="Send from"
          required
          placeholder={locations.isPending ? 'Loading your locations…' : 'Choose a location'}
          data={options}
          value={locationId}
          onChange={(value) => {
            setLocationId(value);
            setLocationError(null);
            reassign.reset();
          }}
          searchable
          nothingFoundMessage="No location matches"
          error={locationError ?? (locations.isError ? errorMessage(locations.error) : undefined)}
          data-autofocus
          // Focused as the dialog opens, it waits for a click, a key or typing to open its list: a list open at
          // once took the dialog's first Escape.
          openOnFocus={false}
        />
        <Textarea
          label="Reason (optional)"
          maxLength={500}
          rows={2}
          value={reason}
          onChange={(event) => setReason(event.currentTarget.value)}
        />
        {reassign.isError ? (
          <Alert color="red" variant="light" title="The line was not moved" role="alert">
            {errorMessage(reassign.error)}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={reassign.isPending}>
            Reassign
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
