import { Alert, Anchor, Button, Group, Skeleton, Stack, Stepper, Text, Title } from '@mantine/core';
import { CHANNEL_LABELS, type FulfillmentOrder, FulfillmentSearch } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, notFound } from '@tanstack/react-router';
import { z } from 'zod';
import { QueryError } from '../../../components/query-error.tsx';
import { errorMessage } from '../../../lib/errors.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { FlaggedBadge, FulfillmentBadge, OrderStatusBadge } from '../orders/-components/order-parts.tsx';
import { fulfillmentOrderOptions, refreshFulfillment } from './-components/fulfillment-api.ts';
import { FulfillmentLines } from './-components/fulfillment-lines.tsx';
import { LabelSlot } from './-components/label-slot.tsx';
import { ScanField } from './-components/scan-field.tsx';

export const Route = createFileRoute('/_app/fulfillment/$id')({
  validateSearch: z.object({
    store_id: z.string().trim().min(1).max(64).optional().catch(undefined),
    /** The queue the order was opened from (tab, filters, sort, page): "← Fulfillment" returns to that very page. */
    queue: FulfillmentSearch.optional().catch(undefined),
  }),
  beforeLoad: ({ params }) => {
    if (params.id.trim() === '' || params.id.length > 64) throw notFound();
  },
  loaderDeps: ({ search }) => search,
  loader: ({ context: { queryClient, trpc }, params, deps }) => {
    void queryClient.prefetchQuery(fulfillmentOrderOptions(trpc, params.id, deps.store_id));
  },
  component: FulfillmentOrderPage,
});

function FulfillmentOrderPage() {
  const { id } = Route.useParams();
  const { store_id, queue } = Route.useSearch();
  const trpc = useTRPC();
  const order = useQuery(fulfillmentOrderOptions(trpc, id, store_id));
  return (
    <Stack gap="lg" maw={1200}>
      <Anchor
        size="sm"
        renderRoot={(props) => (
          <Link
            {...props}
            to="/fulfillment"
            search={queue ?? (store_id ? { filter: { scope: 'toShip' as const, store_id } } : undefined)}
          />
        )}
      >
        ← Fulfillment
      </Anchor>
      {order.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the order">
          <Skeleton height={36} width="40%" />
          <Skeleton height={200} />
        </Stack>
      ) : order.isError ? (
        <QueryError
          title="Could not load this order"
          error={order.error}
          onRetry={order.refetch}
          retrying={order.isFetching}
        />
      ) : (
        <OrderAtStore order={order.data} storeId={store_id} />
      )}
    </Stack>
  );
}

const STEP_INDEX: Record<FulfillmentOrder['step'], number> = { pick: 0, pack: 1, ship: 2, done: 3 };

function OrderAtStore({ order, storeId }: { order: FulfillmentOrder; storeId: string | undefined }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const store = storeId ?? order.store?.storeId;
  const after = async (next: FulfillmentOrder, message?: string) => {
    await refreshFulfillment(queryClient, trpc, next);
    if (message) notify.success(message);
  };
  const scan = useMutation(trpc.fulfillment.scan.mutationOptions({ onSuccess: (r) => after(r.order) }));
  const pack = useMutation(
    trpc.fulfillment.pack.mutationOptions({
      onSuccess: (r) => after(r, 'Packed.'),
      onError: (e) => notify.error(errorMessage(e)),
    }),
  );
  const ready = useMutation(
    trpc.fulfillment.readyForPickup.mutationOptions({
      onSuccess: (r) => after(r, 'Ready for pickup: the customer is e-mailed.'),
      onError: (e) => notify.error(errorMessage(e)),
    }),
  );
  const pickedUp = useMutation(
    trpc.fulfillment.pickedUp.mutationOptions({
      onSuccess: (r) => after(r, 'Picked up.'),
      onError: (e) => notify.error(errorMessage(e)),
    }),
  );
  const pickup = order.fulfillmentType !== 'ship';
  const curbside = order.fulfillmentType === 'curbside_pickup';
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={6}>
          <Group gap="sm" align="center">
            <Title order={1}>Order {order.number}</Title>
            <OrderStatusBadge status={order.status} />
            <FulfillmentBadge type={order.fulfillmentType} />
            {order.flagged ? <FlaggedBadge /> : null}
          </Group>
          <Text c="dimmed" size="sm">
            {order.store ? `At ${order.store.name} (${order.store.storeId})` : 'No store'}
            {order.channel ? ` · ${order.channel.name} (${CHANNEL_LABELS[order.channel.type]})` : ''} ·{' '}
            <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/orders/$id" params={{ id: order.id }} />}>
              Order details
            </Anchor>
          </Text>
        </Stack>
      </Group>

      {curbside ? (
        <Alert color="orange" variant="filled" title="Curbside pickup">
          {order.customerName ?? 'The customer'} waits outside: bring the order out to the car
          {order.customerPhone ? ` (phone ${order.customerPhone})` : ''}.
        </Alert>
      ) : null}
      {order.note ? (
        <Alert variant="light" title="Note from the customer">
          {order.note}
        </Alert>
      ) : null}

      <Stepper active={STEP_INDEX[order.step]} size="sm" allowNextStepsSelect={false}>
        <Stepper.Step label="Pick" description="Scan every unit" />
        <Stepper.Step label="Pack" description="Everything in the parcel" />
        <Stepper.Step
          label={pickup ? 'Hand over' : 'Ship'}
          description={pickup ? 'Ready, then picked up' : 'Buy the label'}
        />
      </Stepper>

      {/* Kept through packing: the last scan's answer stays in view, and a scan then says the line is complete. */}
      {order.step === 'pick' || order.step === 'pack' ? (
        <ScanField
          busy={scan.isPending}
          onScan={async (code) => {
            const result = await scan.mutateAsync({ id: order.id, code, ...(store ? { store_id: store } : {}) });
            return { ok: result.ok, message: result.message };
          }}
        />
      ) : null}

      <FulfillmentLines order={order} storeId={store} />

      <Group gap="sm">
        {order.step === 'pack' ? (
          <Button
            onClick={() => pack.mutate({ id: order.id, ...(store ? { store_id: store } : {}) })}
            loading={pack.isPending}
          >
            Mark packed
          </Button>
        ) : null}
        {pickup ? (
          <>
            <Button
              color="grape"
              disabled={!order.canReadyForPickup}
              loading={ready.isPending}
              onClick={() => ready.mutate({ id: order.id })}
            >
              Ready for pickup
            </Button>
            <Button
              color="teal"
              disabled={!order.canPickUp}
              loading={pickedUp.isPending}
              onClick={() => pickedUp.mutate({ id: order.id })}
            >
              Picked up
            </Button>
          </>
        ) : null}
      </Group>
      {!pickup && order.step !== 'pick' ? <LabelSlot order={order} storeId={store} /> : null}
    </Stack>
  );
}
