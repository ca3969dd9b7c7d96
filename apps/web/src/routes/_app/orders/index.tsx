import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Select,
  Skeleton,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import {
  CHANNEL_LABELS,
  namedAfterType,
  ORDER_STATUSES,
  type OrderCounts,
  type OrderSummary,
  OrdersSearch,
  orderStatusLabel,
  PAGE_SIZE_OPTIONS,
} from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { Pager } from '../../../components/pager.tsx';
import { QueryError } from '../../../components/query-error.tsx';
import { formatDate, formatTime } from '../../../lib/format.ts';
import { useWideScreen } from '../../../lib/media.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { useDebouncedText } from '../../../lib/use-debounced-text.ts';
import { formatMoney } from '../../subscription/-components/money.ts';
import { ORDERS_SEARCH_DEFAULTS, orderCountOptions, orderListOptions } from './-components/order-api.ts';
import { FlaggedBadge, FulfillmentBadge, OrderStatusBadge } from './-components/order-parts.tsx';

type SortKey = OrdersSearch['sort_by'];

// SPEC §2: the list's state (status, search, sort, page) is in the address, with the defaults left out.
export const Route = createFileRoute('/_app/orders/')({
  validateSearch: OrdersSearch,
  search: { middlewares: [stripSearchParams(ORDERS_SEARCH_DEFAULTS)] },
  loaderDeps: ({ search }) => search,
  loader: ({ context: { queryClient, trpc }, deps }) => {
    void queryClient.prefetchQuery(orderListOptions(trpc, deps));
  },
  component: OrdersPage,
});

const STATUS_TABS = [
  { value: -1, label: 'All' },
  ...Object.entries(ORDER_STATUSES).map(([value, label]) => ({ value: Number(value), label })),
];

function OrdersPage() {
  const trpc = useTRPC();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const list = useQuery({ ...orderListOptions(trpc, search), placeholderData: keepPreviousData });
  const counts = useQuery({ ...orderCountOptions(trpc, search), placeholderData: keepPreviousData });

  type Change = Partial<Omit<OrdersSearch, 'search'>> & { search?: string | undefined };
  // Any change of filter, sort or page size starts again at the first page.
  const change = (next: Change, replace = false) =>
    void navigate({ search: (prev) => ({ ...prev, offset: 0, ...next }), replace });
  const text = useDebouncedText(search.search ?? '', (next) => change({ search: next || undefined }, true));

  return (
    <Stack gap="lg" maw={1400}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Orders</Title>
          <Text c="dimmed" size="sm">
            Every order from your channels and stores, with the stock it holds. New orders show up here on their own.
          </Text>
        </Stack>
        <Button
          variant="default"
          size="xs"
          onClick={() => {
            void list.refetch();
            void counts.refetch();
          }}
          loading={list.isFetching && !list.isPending}
          disabled={list.isPending}
        >
          Refresh
        </Button>
      </Group>

      <StatusTabs status={search.status} counts={counts.data} onChange={(status) => change({ status })} />

      <Group align="flex-end" gap="md" wrap="wrap">
        <TextInput
          type="search"
          label="Search orders"
          placeholder="Number, customer, e-mail or SKU"
          value={text.text}
          onChange={(event) => text.setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') text.flush();
          }}
          w={320}
        />
        {counts.data && counts.data.flagged > 0 ? (
          <Badge color="red" variant="light" size="lg" mb={4}>
            {counts.data.flagged === 1 ? '1 order needs attention' : `${counts.data.flagged} orders need attention`}
          </Badge>
        ) : null}
      </Group>

      {list.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading orders">
          {[0, 1, 2, 3, 4].map((row) => (
            <Skeleton key={row} height={32} />
          ))}
        </Stack>
      ) : list.isError ? (
        <QueryError
          title="Could not load the orders"
          error={list.error}
          onRetry={list.refetch}
          retrying={list.isFetching}
        />
      ) : list.data.results.length === 0 ? (
        <EmptyState search={search} counts={counts.data} onChange={change} />
      ) : (
        <Stack gap="sm">
          <OrderTable
            orders={list.data.results}
            search={search}
            busy={list.isFetching}
            onSort={(sort_by, sort) => change({ sort_by, sort })}
          />
          <Group justify="space-between" align="center" wrap="wrap" gap="sm">
            <Select
              label="Per page"
              // A size typed into the address (the API takes 1 to 200) is offered too, so the select names it.
              data={[...new Set<number>([...PAGE_SIZE_OPTIONS, search.limit])].sort((x, y) => x - y).map(String)}
              value={String(search.limit)}
              allowDeselect={false}
              onChange={(value) => change({ limit: Number(value ?? ORDERS_SEARCH_DEFAULTS.limit) })}
              w={110}
              size="xs"
            />
            <div style={{ flex: 1 }}>
              <Pager
                label="Orders"
                total={list.data.total}
                totalIsLowerBound={list.data.totalCapped}
                limit={search.limit}
                offset={search.offset}
                onChange={(offset) => void navigate({ search: (prev) => ({ ...prev, offset }) })}
                disabled={list.isFetching && list.isPlaceholderData}
              />
            </div>
          </Group>
        </Stack>
      )}
    </Stack>
  );
}

function StatusTabs({
  status,
  counts,
  onChange,
}: {
  status: number;
  counts: OrderCounts | undefined;
  onChange: (status: number) => void;
}) {
  const countOf = (value: number) => (value === -1 ? counts?.total : (counts?.byStatus[String(value)] ?? 0));
  return (
    <Tabs value={String(status)} onChange={(value) => value !== null && onChange(Number(value))}>
      <Tabs.List aria-label="Order status">
        {STATUS_TABS.map((tab) => {
          const count = counts ? countOf(tab.value) : undefined;
          return (
            <Tabs.Tab
              key={tab.value}
              value={String(tab.value)}
              rightSection={
                count === undefined ? null : (
                  <Badge size="sm" variant="light" color={count > 0 ? 'blue' : 'gray'} circle={count < 10}>
                    {count.toLocaleString()}
                  </Badge>
                )
              }
            >
              {tab.label}
            </Tabs.Tab>
          );
        })}
      </Tabs.List>
    </Tabs>
  );
}

function EmptyState({
  search,
  counts,
  onChange,
}: {
  search: OrdersSearch;
  counts: OrderCounts | undefined;
  onChange: (next: { search?: undefined; status?: number }) => void;
}) {
  if (search.offset > 0)
    return (
      <Text c="dimmed">
        This page is empty.{' '}
        <Anchor component="button" type="button" onClick={() => onChange({})}>
          Back to the first page
        </Anchor>
      </Text>
    );
  if (search.search)
    return (
      <Alert variant="light" title="No orders match">
        <Stack gap="xs" align="flex-start">
          <Text size="sm">
            No order matches “{search.search}”
            {search.status === -1 ? '' : ` among the ${orderStatusLabel(search.status).toLowerCase()} ones`}. Search
            looks at the order number, the customer's name and e-mail, and the SKUs.
          </Text>
          <Button size="xs" variant="default" onClick={() => onChange({ search: undefined })}>
            Clear the search
          </Button>
        </Stack>
      </Alert>
    );
  if (search.status !== -1 && (counts?.total ?? 0) > 0)
    return (
      <Alert variant="light" title={`No ${orderStatusLabel(search.status).toLowerCase()} orders`}>
        <Stack gap="xs" align="flex-start">
          <Text size="sm">No order has this status right now.</Text>
          <Button size="xs" variant="default" onClick={() => onChange({ status: -1 })}>
            Show all orders
          </Button>
        </Stack>
      </Alert>
    );
  return (
    <Alert variant="light" title="No orders yet">
      Orders show here within seconds of being placed on a connected channel or rung up at a store. Connect a channel to
      start.
    </Alert>
  );
}

interface OrderTableProps {
  orders: OrderSummary[];
  search: OrdersSearch;
  busy: boolean;
  onSort: (column: SortKey, order: 'asc' | 'desc') => void;
}

/**
 * On a wide screen the list scrolls sideways below this width. Beside the navigation at a 1280 px window the table
 * has about 1008 px, so it must fit in less: the customer column gives way (truncated, whole text in its title).
 * On a phone it shows the order (with its day), the customer, the status and the total, and needs no scrolling.
 */
const ORDERS_TABLE_MIN_WIDTH = 860;
const WIDE = 'sm';

/** A channel's name ends in "…" past this width (a second line pushed every row of its page down). */
const CHANNEL_WIDTH = 'clamp(140px, 16vw, 280px)';

/** The customer's name and e-mail end in "…" past this width; it grows with the window up to a point. */
const CUSTOMER_WIDTH = 'clamp(110px, 22vw, 420px)';

function OrderTable({ orders, search, busy, onSort }: OrderTableProps) {
  const wide = useWideScreen();
  const header = (column: SortKey, label: string, align: 'left' | 'right' = 'left', visibleFrom?: typeof WIDE) => {
    const active = search.sort_by === column;
    // A first click sorts descending (newest, largest first); another click on the same column turns it round.
    const next = active && search.sort === 'desc' ? 'asc' : 'desc';
    return (
      <Table.Th
        scope="col"
        aria-sort={active ? (search.sort === 'asc' ? 'ascending' : 'descending') : 'none'}
        style={{ textAlign: align, whiteSpace: 'nowrap' }}
        visibleFrom={visibleFrom}
      >
        <UnstyledButton onClick={() => onSort(column, next)} fw={700} fz="sm" style={{ whiteSpace: 'nowrap' }}>
          {label}{' '}
          <Text span c={active ? undefined : 'dimmed'} aria-hidden>
            {active ? (search.sort === 'asc' ? '▲' : '▼') : '↕'}
          </Text>
        </UnstyledButton>
      </Table.Th>
    );
  };
  return (
    <Table.ScrollContainer minWidth={wide ? ORDERS_TABLE_MIN_WIDTH : 0}>
      <Table striped highlightOnHover aria-label="Orders" aria-busy={busy} verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            {header('number', 'Order')}
            {header('placed_at', 'Placed', 'left', WIDE)}
            {/* One cell for where the order came from and how it leaves: two columns did not fit beside the menu. */}
            <Table.Th scope="col" style={{ whiteSpace: 'nowrap' }} visibleFrom={WIDE}>
              Channel / Fulfillment
            </Table.Th>
            {header('customer', 'Customer')}
            {header('status', 'Status')}
            <Table.Th scope="col" style={{ textAlign: 'right', whiteSpace: 'nowrap' }} visibleFrom={WIDE}>
              Items
            </Table.Th>
            {header('total', 'Total', 'right')}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {orders.map((order) => (
            <OrderRow key={order.id} order={order} search={search} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function OrderRow({ order, search }: { order: OrderSummary; search: OrdersSearch }) {
  const customer = order.customerName ?? order.customerEmail ?? 'Guest';
  const email = order.customerName && order.customerEmail ? order.customerEmail : null;
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap="xs">
          {/* The detail keeps the list's search params, so its Back link returns to this very page. */}
          <Anchor
            fw={600}
            style={{ whiteSpace: 'nowrap' }}
            renderRoot={(props) => <Link {...props} to="/orders/$id" params={{ id: order.id }} search={search} />}
          >
            {order.number}
          </Anchor>
          {order.flagged ? <FlaggedBadge /> : null}
        </Group>
        {/* On a phone the Placed column is not there: the day stands under the number. */}
        <Text size="xs" c="dimmed" hiddenFrom={WIDE} style={{ whiteSpace: 'nowrap' }}>
          {formatDate(order.placedAt)}
        </Text>
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }} visibleFrom={WIDE}>
        {/* The date over the time: one line of "Nov 27, 2026, 10:24 PM" wrapped anyway, at a random place. */}
        <time dateTime={order.placedAt.toISOString()} style={{ display: 'flex', flexDirection: 'column' }}>
          <Text span size="sm">
            {formatDate(order.placedAt)}
          </Text>
          <Text span size="xs" c="dimmed">
            {formatTime(order.placedAt)}
          </Text>
        </time>
      </Table.Td>
      <Table.Td visibleFrom={WIDE}>
        <Stack gap={4} align="flex-start" maw={CHANNEL_WIDTH}>
          {order.channel ? (
            <Text size="sm" truncate="end" title={order.channel.name} maw="100%">
              {order.channel.name}
            </Text>
          ) : (
            <Text size="sm" c="dimmed">
              Removed channel
            </Text>
          )}
          <Group gap={6}>
            {/* A channel named after its type ("Shopify") would read "Shopify / Shopify": the type once is enough. */}
            {order.channel && !namedAfterType(order.channel.name, order.channel.type) ? (
              <Text span size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                {CHANNEL_LABELS[order.channel.type]}
              </Text>
            ) : null}
            <FulfillmentBadge type={order.fulfillmentType} />
          </Group>
        </Stack>
      </Table.Td>
      <Table.Td>
        <Stack gap={0} maw={CUSTOMER_WIDTH}>
          <Text size="sm" truncate="end" title={customer}>
            {customer}
          </Text>
          {email ? (
            <Text size="xs" c="dimmed" truncate="end" title={email}>
              {email}
            </Text>
          ) : null}
        </Stack>
      </Table.Td>
      <Table.Td>
        <OrderStatusBadge status={order.status} />
      </Table.Td>
      <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }} visibleFrom={WIDE}>
        {order.itemCount.toLocaleString()}
      </Table.Td>
      <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
        {formatMoney(order.total, order.currency)}
      </Table.Td>
    </Table.Tr>
  );
}
