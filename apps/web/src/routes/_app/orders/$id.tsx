import { Alert, Anchor, Group, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { CHANNEL_LABELS, namedAfterType, type OrderDetail, OrdersSearch } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, notFound, stripSearchParams } from '@tanstack/react-router';
import { QueryError } from '../../../components/query-error.tsx';
import { ShipmentsSection } from '../../../components/shipments/shipments-section.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { CancelOrderButton, NoteAndTags, ShippingAddressEdit, StatusChange } from './-components/order-actions.tsx';
import { ORDERS_SEARCH_DEFAULTS, orderOptions } from './-components/order-api.ts';
import { CommentsSection } from './-components/order-comments.tsx';
import { LinesSection } from './-components/order-lines.tsx';
import { FLAGGED_HINT, FlaggedBadge, FulfillmentBadge, OrderStatusBadge } from './-components/order-parts.tsx';
import { CreateReturnButton, OrderReturnsSection } from './-components/order-return.tsx';
import { CustomerSection, PaymentSection, TimelineSection } from './-components/order-sections.tsx';

// SPEC §2: the detail takes the list's search params, so its Back link returns to the same list page.
export const Route = createFileRoute('/_app/orders/$id')({
  validateSearch: OrdersSearch,
  search: { middlewares: [stripSearchParams(ORDERS_SEARCH_DEFAULTS)] },
  // An order id is at most 64 characters (OrderIdInput); a longer one is a page that does not exist.
  beforeLoad: ({ params }) => {
    if (params.id.trim() === '' || params.id.length > 64) throw notFound();
  },
  loader: ({ context: { queryClient, trpc }, params }) => {
    void queryClient.prefetchQuery(orderOptions(trpc, params.id));
  },
  component: OrderPage,
});

function OrderPage() {
  const { id } = Route.useParams();
  const search = Route.useSearch();
  const trpc = useTRPC();
  const order = useQuery(orderOptions(trpc, id));
  return (
    <Stack gap="lg" maw={1300}>
      <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/orders" search={search} />}>
        ← Orders
      </Anchor>
      {order.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the order">
          <Skeleton height={36} width="40%" />
          <Skeleton height={120} />
          <Skeleton height={240} />
        </Stack>
      ) : order.isError ? (
        <QueryError
          title="Could not load this order"
          error={order.error}
          onRetry={order.refetch}
          retrying={order.isFetching}
        />
      ) : (
        <OrderView key={order.data.id} order={order.data} />
      )}
    </Stack>
  );
}

function OrderView({ order }: { order: OrderDetail }) {
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
            {order.channel ? (
              <>
                <Anchor
                  size="sm"
                  renderRoot={(props) => (
                    <Link {...props} to="/channels/$id" params={{ id: order.channel?.id ?? '' }} />
                  )}
                >
                  {order.channel.name}
                </Anchor>
                {namedAfterType(order.channel.name, order.channel.type)
                  ? null
                  : ` (${CHANNEL_LABELS[order.channel.type]})`}
              </>
            ) : (
              'A removed channel'
            )}{' '}
            · placed <time dateTime={order.placedAt.toISOString()}>{formatDateTime(order.placedAt.toISOString())}</time>
            {order.channelUrl ? (
              <>
                {' '}
                ·{' '}
                <Anchor size="sm" href={order.channelUrl} target="_blank" rel="noopener noreferrer">
                  Open at {order.channel ? CHANNEL_LABELS[order.channel.type] : 'the channel'} ↗
                </Anchor>
              </>
            ) : null}
          </Text>
        </Stack>
        <Group gap="sm">
          <CreateReturnButton order={order} />
          <CancelOrderButton order={order} />
        </Group>
      </Group>

      {order.cancelledAt ? (
        <Alert color="gray" variant="light" title="Cancelled">
          Cancelled {formatDateTime(order.cancelledAt.toISOString())}
          {order.cancelReason ? `: ${order.cancelReason}` : '.'}
        </Alert>
      ) : null}
      {order.flagged ? (
        <Alert color="red" variant="light" title="This order needs attention">
          {FLAGGED_HINT} The lines concerned are marked below.
        </Alert>
      ) : null}

      <StatusChange order={order} />

      <LinesSection order={order} />
      {order.fulfillmentType === 'ship' ? (
        <ShipmentsSection
          orderId={order.id}
          canBuy={
            [1, 2].includes(order.status) &&
            order.lines.some((l) => l.allocations.some((a) => a.status === 1 || a.status === 2))
          }
        />
      ) : null}
      <OrderReturnsSection orderId={order.id} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <CustomerSection order={order} shippingAction={<ShippingAddressEdit order={order} />} />
        <PaymentSection order={order} />
      </SimpleGrid>
      {/* Keyed by what is saved: after a save, or a change made elsewhere, the draft starts again from it. */}
      <NoteAndTags key={`${order.note ?? ''}\u0000${order.tags.join('\u0000')}`} order={order} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <TimelineSection entries={order.timeline} />
        <CommentsSection orderId={order.id} />
      </SimpleGrid>
    </Stack>
  );
}
