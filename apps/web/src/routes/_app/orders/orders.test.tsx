import {
  type Comment,
  ORDER_MESSAGES,
  ORDER_TRANSITIONS,
  type OrderCounts,
  type OrderDetail,
  type OrderList,
  type OrderStatus,
  type OrderSummary,
  type Return,
  type TimelineEntry,
} from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { formatDate } from '../../../lib/format.ts';
import { PHONE, WIDE_SCREEN } from '../../../lib/media.ts';
import { matchOnly } from '../../../test/media.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError, type RecordedCall } from '../../../test/trpc-stub.ts';

/** The first screen of a test waits longer: CI shares two cores. */
const SLOW = { timeout: 5000 };
const T0 = new Date('2026-11-20T10:00:00.000Z');
const usd = (minor: number) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' }).format(minor / 100);

function orderOf(n: number, overrides: Partial<OrderSummary> = {}): OrderSummary {
  return {
    id: `ord_${n}`,
    channel: { id: 'chn_1', name: 'Main Shopify', type: 'shopify' },
    externalId: `gid://shopify/Order/${n}`,
    number: `#${1000 + n}`,
    status: 1,
    fulfillmentType: 'ship',
    customerName: `Customer ${n}`,
    customerEmail: `c${n}@example.com`,
    currency: 'USD',
    total: 1000 * n + 99,
    financialStatus: 'paid',
    itemCount: 1,
    flagged: false,
    placedAt: new Date(T0.getTime() - n * 60_000),
    updatedAt: T0,
    ...overrides,
  };
}

/** 40 orders, newest first: 30 open (#1003 a curbside pickup, #1002 flagged), 6 pending, 4 cancelled. */
const ORDERS: OrderSummary[] = Array.from({ length: 40 }, (_, i) => {
  const n = i + 1;
  if (n === 2) return orderOf(n, { flagged: true });
  if (n === 3)
    return orderOf(n, {
      fulfillmentType: 'curbside_pickup',
      channel: { id: 'chn_2', name: 'Downtown', type: 'square' },
    });
  if (n > 36) return orderOf(n, { status: 7 });
  if (n > 30) return orderOf(n, { status: 0 });
  return orderOf(n);
});

type ListInput = { status?: number; search?: string; limit?: number; offset?: number };

function matching({ status = 1, search }: ListInput) {
  const q = search?.toLowerCase();
  return ORDERS.filter(
    (o) =>
      (status === -1 || o.status === status) &&
      (!q || [o.number, o.customerName, o.customerEmail].some((text) => text?.toLowerCase().includes(q))),
  );
}

const listHandlers = {
  'orders.list': (input: unknown): OrderList => {
    const i = input as ListInput;
    const rows = matching(i);
    const offset = i.offset ?? 0;
    const limit = i.limit ?? 25;
    return { results: rows.slice(offset, offset + limit), total: rows.length, totalCapped: false, limit, offset };
  },
  'orders.count': (input: unknown): OrderCounts => {
    const rows = matching({ ...(input as ListInput), status: -1 });
    const byStatus: Record<string, number> = {};
    for (const o of rows) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    return { total: rows.length, byStatus, flagged: rows.filter((o) => o.flagged).length };
  },
};

const listCalls = (calls: RecordedCall[]) =>
  calls.flatMap((call) =>
    call.paths.flatMap((path, i) => (path === 'orders.list' ? [call.inputs[i] as ListInput] : [])),
  );

describe('orders list', { timeout: 30_000 }, () => {
  it('shows the open orders with channel, customer, fulfillment, status, total and flag, and counts per status', async () => {
    await renderApp('/orders', { signedIn: true, handlers: listHandlers });
    const table = await screen.findByRole('table', { name: 'Orders' }, SLOW);
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(26);

    const first = rows[1] as HTMLElement;
    expect(within(first).getByRole('link', { name: '#1001' })).toHaveAttribute('href', '/orders/ord_1');
    expect(within(first).getByText('Main Shopify')).toBeInTheDocument();
    expect(within(first).getByText('Shopify')).toBeInTheDocument();
    expect(within(first).getByText('c1@example.com')).toBeInTheDocument();
    expect(within(first).getByText('Open')).toBeInTheDocument();
    expect(within(first).getByText(usd(1099))).toBeInTheDocument();
    expect(within(rows[2] as HTMLElement).getByText('Flagged')).toBeInTheDocument();
    const curbside = rows[3] as HTMLElement;
    expect(within(curbside).getByText('Curbside pickup')).toBeInTheDocument();
    expect(within(curbside).getByText('Square POS')).toBeInTheDocument();

    const tabs = screen.getByRole('tablist', { name: 'Order status' });
    expect(within(tabs).getByRole('tab', { name: /^Open/ })).toHaveAttribute('aria-selected', 'true');
    await waitFor(() => expect(within(tabs).getByRole('tab', { name: /^All/ })).toHaveTextContent('40'), SLOW);
    expect(within(tabs).getByRole('tab', { name: /^Open/ })).toHaveTextContent('30');
    expect(within(tabs).getByRole('tab', { name: /^Pending/ })).toHaveTextContent('6');
    expect(screen.getByText('1 order needs attention')).toBeInTheDocument();
    expect(screen.getByText('1–25 of 30')).toBeInTheDocument();
  });

  it('names the channel type once when the channel is named after it', async () => {
    const rows = [
      orderOf(1, { channel: { id: 'chn_3', name: 'Shopify', type: 'shopify' } }),
      orderOf(2, { channel: { id: 'chn_4', name: 'square pos ', type: 'square' } }),
      orderOf(3),
    ];
    await renderApp('/orders', {
      signedIn: true,
      handlers: {
        ...listHandlers,
        'orders.list': (): OrderList => ({ results: rows, total: 3, totalCapped: false, limit: 25, offset: 0 }),
      },
    });
    const table = await screen.findByRole('table', { name: 'Orders' }, SLOW);
    const [, named, lowerCase, other] = within(table).getAllByRole('row') as HTMLElement[];
    expect(within(named as HTMLElement).getAllByText(/Shopify/)).toHaveLength(1);
    expect(within(lowerCase as HTMLElement).getByText('square pos')).toBeInTheDocument();
    expect(within(lowerCase as HTMLElement).queryByText('Square POS')).not.toBeInTheDocument();
    expect(within(other as HTMLElement).getByText('Main Shopify')).toBeInTheDocument();
    expect(within(other as HTMLElement).getByText('Shopify')).toBeInTheDocument();
  });

  it('on a phone shows the order with its day, the customer, the status and the total, without scrolling', async () => {
    const order = orderOf(1, { customerName: 'Grace Hopper' });
    await renderApp('/orders', {
      signedIn: true,
      handlers: {
        ...listHandlers,
        'orders.list': (): OrderList => ({ results: [order], total: 1, totalCapped: false, limit: 25, offset: 0 }),
      },
    });
    const table = await screen.findByRole('table', { name: 'Orders' }, SLOW);
    const scroll = table.closest('.mantine-TableScrollContainer-scrollContainer') as HTMLElement;
    expect(scroll.style.getPropertyValue('--table-min-width')).toBe('0rem');
    // Placed, where it came from and the item count are left to wider screens (Mantine's responsive classes).
    const headers = within(table).getAllByRole('columnheader');
    const shown = headers.filter((th) => !th.classList.contains('mantine-visible-from-sm'));
    expect(shown.map((th) => th.textContent?.replace(/[↕▲▼]/g, '').trim())).toEqual([
      'Order',
      'Customer',
      'Status',
      'Total',
    ]);
    const [, row] = within(table).getAllByRole('row') as HTMLElement[];
    const day = within(row as HTMLElement).getByText(formatDate(order.placedAt), { selector: 'p' });
    expect(day).toHaveClass('mantine-hidden-from-sm');
  });

  it('fits its columns beside the navigation of a 1280 px window: headers on one line, the customer cut short', async () => {
    matchOnly(WIDE_SCREEN);
    const long = orderOf(1, {
      customerName: 'Bartholomew Fitzgerald-Worthington III',
      customerEmail: 'bart.fitzgerald.worthington@some-very-long-domain.example.com',
      fulfillmentType: 'curbside_pickup',
      channel: { id: 'chn_2', name: 'Downtown', type: 'square' },
    });
    await renderApp('/orders', {
      signedIn: true,
      handlers: {
        ...listHandlers,
        'orders.list': (): OrderList => ({ results: [long], total: 1, totalCapped: false, limit: 25, offset: 0 }),
      },
    });
    const table = await screen.findByRole('table', { name: 'Orders' }, SLOW);
    // Eight columns needed 1100 px where the page has about 1008: channel and fulfillment now share a cell.
    const headers = within(table).getAllByRole('columnheader');
    expect(headers.map((th) => th.textContent?.replace(/[↕▲▼]/g, '').trim())).toEqual([
      'Order',
      'Placed',
      'Channel / Fulfillment',
      'Customer',
      'Status',
      'Items',
      'Total',
    ]);
    // "Order ↕" and "Status ↕" broke onto two lines.
    for (const th of headers) expect(th).toHaveStyle({ whiteSpace: 'nowrap' });
    // Below its minimum width the table scrolls sideways (a phone); the 1008 px beside the menu are above it.
    const scroll = table.closest('.mantine-TableScrollContainer-scrollContainer') as HTMLElement;
    const minWidth = /^calc\(([\d.]+)rem/.exec(scroll.style.getPropertyValue('--table-min-width'))?.[1];
    expect(Number(minWidth) * 16).toBeGreaterThan(390);
    expect(Number(minWidth) * 16).toBeLessThanOrEqual(1008);

    const [, row] = within(table).getAllByRole('row') as HTMLElement[];
    const cells = within(row as HTMLElement).getAllByRole('cell');
    expect(cells[2]).toHaveTextContent(/^DowntownSquare POSCurbside pickup$/);
    // The date over the time, the whole instant in the time element.
    const placed = (cells[1] as HTMLElement).querySelector('time') as HTMLElement;
    expect(placed).toHaveAttribute('dateTime', long.placedAt.toISOString());
    expect(placed.children).toHaveLength(2);
    // A long name or e-mail ends in "…" on screen; its title still has all of it.
    const name = within(cells[3] as HTMLElement).getByText(long.customerName as string);
    expect(name).toHaveAttribute('title', long.customerName);
    expect(name).toHaveAttribute('data-truncate', 'end');
    const email = within(cells[3] as HTMLElement).getByText(long.customerEmail as string);
    expect(email).toHaveAttribute('title', long.customerEmail);
    expect(email).toHaveAttribute('data-truncate', 'end');
    // So does a long channel name, which took a second line and pushed its row down.
    const channel = within(cells[2] as HTMLElement).getByText('Downtown');
    expect(channel).toHaveAttribute('title', 'Downtown');
    expect(channel).toHaveAttribute('data-truncate', 'end');
  });

  it('keeps status, search and page in the address and asks the server for them', async () => {
    const { user, router, fetch } = await renderApp('/orders', { signedIn: true, handlers: listHandlers });
    const table = await screen.findByRole('table', { name: 'Orders' }, SLOW);

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByText('26–30 of 30')).toBeInTheDocument(), SLOW);
    expect(router.state.location.search).toEqual({ offset: 25 });
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    await user.click(screen.getByRole('tab', { name: /^All/ }));
    await waitFor(() => expect(screen.getByText('1–25 of 40')).toBeInTheDocument(), SLOW);
    expect(router.state.location.search).toEqual({ status: -1 });
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();

    await user.type(screen.getByRole('searchbox', { name: 'Search orders' }), 'c3');
    await waitFor(() => expect(router.state.location.search).toEqual({ status: -1, search: 'c3' }), SLOW);
    // c3, c30 … c39.
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(12), SLOW);
    expect(listCalls(fetch.calls).at(-1)).toMatchObject({ status: -1, search: 'c3', offset: 0, limit: 25 });

    await user.click(screen.getByRole('button', { name: /^Total/ }));
    await waitFor(() => expect(router.state.location.search).toMatchObject({ sort_by: 'total' }), SLOW);
    expect(listCalls(fetch.calls).at(-1)).toMatchObject({ sort_by: 'total', sort: 'desc', search: 'c3' });
  });

  it('says when there are no orders yet, and when none match', async () => {
    const empty = {
      'orders.list': (): OrderList => ({ results: [], total: 0, totalCapped: false, limit: 25, offset: 0 }),
      'orders.count': (): OrderCounts => ({ total: 0, byStatus: {}, flagged: 0 }),
    };
    const first = await renderApp('/orders', { signedIn: true, handlers: empty });
    expect(await screen.findByText('No orders yet', {}, SLOW)).toBeInTheDocument();
    first.unmount();
    await renderApp('/orders?search=nobody', { signedIn: true, handlers: listHandlers });
    expect(await screen.findByText('No orders match', {}, SLOW)).toBeInTheDocument();
  });

  it('shows the load error', async () => {
    // Three retries, 1 s doubling (SPEC §9), before the failure shows: on a fake clock, which findBy moves on.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await renderApp('/orders', {
      signedIn: true,
      handlers: {
        ...listHandlers,
        'orders.list': () => {
          throw new ProcedureError('BAD_REQUEST', 'The database is resting');
        },
      },
    });
    expect(await screen.findByText('Could not load the orders', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.getByText('The database is resting')).toBeInTheDocument();
  });
});

function detailOf(overrides: Partial<OrderDetail> = {}): OrderDetail {
  const status = (overrides.status ?? 1) as OrderStatus;
  return {
    ...orderOf(1),
    flagged: true,
    customerPhone: '+1 555 0101',
    shippingAddress: { name: 'Ada Lovelace', address1: '1 Engine Row', city: 'London', zip: 'N1', country: 'GB' },
    billingAddress: null,
    pickupLocation: null,
    subtotal: 2000,
    shippingTotal: 500,
    discountTotal: 300,
    taxTotal: 150,
    total: 2350,
    note: null,
    tags: [],
    cancelledAt: null,
    cancelReason: null,
    channelUrl: 'https://main.myshopify.com/admin/orders/1',
    allowedStatuses: [...ORDER_TRANSITIONS[status]],
    cancellable: true,
    lines: [
      {
        id: 'lin_1',
        externalId: 'l1',
        sku: 'MUG-RED',
        variantId: 'var_1',
        productId: 'prd_1',
        title: 'Red mug',
        quantity: 2,
        unitPrice: 1000,
        discount: 300,
        tax: 150,
        fulfilledQty: 0,
        cancelledQty: 0,
        refundedQty: 0,
        unknownSku: false,
        allocations: [
          {
            id: 'alc_1',
            locationId: 'loc_1',
            locationName: 'North store',
            storeId: 'N1',
            quantity: 1,
            reserved: 1,
            status: 1,
            reason: null,
          },
          {
            id: 'alc_2',
            locationId: null,
            locationName: null,
            storeId: null,
            quantity: 1,
            reserved: 0,
            status: 4,
            reason: ORDER_MESSAGES.noLocation,
          },
        ],
      },
      {
        id: 'lin_2',
        externalId: 'l2',
        sku: 'GHOST-1',
        variantId: null,
        productId: null,
        title: 'Mystery item',
        quantity: 1,
        unitPrice: 0,
        discount: 0,
        tax: 0,
        fulfilledQty: 0,
        cancelledQty: 0,
        refundedQty: 0,
        unknownSku: true,
        allocations: [],
      },
    ],
    timeline: [
      {
        id: 'tl_1',
        kind: 'imported',
        message: 'Imported from Main Shopify',
        actor: 'Main Shopify',
        fromStatus: null,
        toStatus: 1,
        outcome: null,
        createdAt: T0,
      },
      {
        id: 'tl_2',
        kind: 'status',
        message: 'Put on hold: waiting for the customer',
        actor: 'Ada Lovelace',
        fromStatus: 1,
        toStatus: 6,
        outcome: null,
        createdAt: new Date(T0.getTime() + 60_000),
      },
    ],
    ...overrides,
  };
}

/** An order page with the list behind it and no comments yet. */
const detailHandlers = {
  ...listHandlers,
  'orders.get': () => detailOf(),
  'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
};

describe('order detail', { timeout: 30_000 }, () => {
  it('shows lines with their allocations, customer, payment and timeline, and goes back to the same list page', async () => {
    await renderApp('/orders/ord_1?status=-1&offset=25', {
      signedIn: true,
      handlers: detailHandlers,
    });
    expect(await screen.findByRole('heading', { name: 'Order #1001' }, SLOW)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '← Orders' })).toHaveAttribute('href', '/orders?status=-1&offset=25');
    expect(screen.getByRole('link', { name: /Open at Shopify/ })).toHaveAttribute(
      'href',
      'https://main.myshopify.com/admin/orders/1',
    );

    const lines = screen.getByRole('table', { name: 'Lines' });
    // The numbers' headers stay on one line over their right-aligned figures ("Unit price" wrapped at 1280 px).
    for (const name of ['Qty', 'Unit price', 'Line total'])
      expect(within(lines).getByRole('columnheader', { name })).toHaveStyle({
        whiteSpace: 'nowrap',
        textAlign: 'right',
      });
    const [, mug, ghost] = within(lines).getAllByRole('row') as HTMLElement[];
    expect(within(mug as HTMLElement).getByText('North store')).toBeInTheDocument();
    expect(within(mug as HTMLElement).getByText('Allocated')).toBeInTheDocument();
    expect(within(mug as HTMLElement).getByText('Insufficient stock')).toBeInTheDocument();
    expect(within(mug as HTMLElement).getByText(ORDER_MESSAGES.noLocation)).toBeInTheDocument();
    expect(mug).toHaveAttribute('data-attention', 'true');
    expect(within(ghost as HTMLElement).getByText(ORDER_MESSAGES.unknownSku('GHOST-1'))).toBeInTheDocument();
    expect(within(ghost as HTMLElement).getByText('Not allocated')).toBeInTheDocument();

    const payment = screen.getByRole('table', { name: 'Payment' });
    expect(within(payment).getByRole('row', { name: /Discounts/ })).toHaveTextContent(usd(-300));
    expect(within(payment).getByRole('row', { name: /^Total/ })).toHaveTextContent(usd(2350));
    // The channel's payment status in words ("paid" from the channel).
    expect(within(payment).getByText('Paid')).toBeInTheDocument();
    // The shipping address as the United Kingdom writes it: the town, then the postcode, then the country's name.
    expect(screen.getByText('1 Engine Row', { exact: false })).toHaveTextContent(
      /^Ada Lovelace\s+1 Engine Row\s+London\s+N1\s+United Kingdom$/,
    );

    expect(screen.getByText('Put on hold: waiting for the customer')).toBeInTheDocument();
    expect(screen.getByText('Open → On hold')).toBeInTheDocument();
    expect(screen.getByText(/Ada Lovelace ·/)).toBeInTheDocument();
  });

  it("shows a cancelled order's allocation as released, not as still allocated", async () => {
    const open = detailOf();
    const [line] = open.lines as [OrderDetail['lines'][number]];
    const [held] = line.allocations as [OrderDetail['lines'][number]['allocations'][number]];
    await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        ...listHandlers,
        'orders.get': () =>
          detailOf({
            status: 7,
            lines: [{ ...line, allocations: [{ ...held, reserved: 0 }] }],
          }),
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
      },
    });
    const lines = await screen.findByRole('table', { name: 'Lines' }, SLOW);
    const [, row] = within(lines).getAllByRole('row') as HTMLElement[];
    expect(within(row as HTMLElement).getByText('North store')).toBeInTheDocument();
    expect(within(row as HTMLElement).getByText('Released')).toBeInTheDocument();
    expect(within(row as HTMLElement).queryByText('Allocated')).not.toBeInTheDocument();
  });

  it('on a phone lays each line over its allocations, with their actions in view, instead of a wide table', async () => {
    matchOnly(PHONE);
    await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: detailHandlers,
    });
    expect(await screen.findByRole('heading', { name: 'Order #1001' }, SLOW)).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Lines' })).not.toBeInTheDocument();
    const [mug, ghost] = [...screen.getByRole('list', { name: 'Lines' }).children] as HTMLElement[];
    expect(mug).toHaveAttribute('data-attention', 'true');
    expect(within(mug as HTMLElement).getByText('North store')).toBeInTheDocument();
    expect(within(mug as HTMLElement).getByText('Insufficient stock')).toBeInTheDocument();
    expect(within(mug as HTMLElement).getAllByRole('button', { name: /^Reassign / }).length).toBeGreaterThan(0);
    expect(within(ghost as HTMLElement).getByText(ORDER_MESSAGES.unknownSku('GHOST-1'))).toBeInTheDocument();
    expect(within(ghost as HTMLElement).getByText('Not allocated')).toBeInTheDocument();
  });

  it('lists the timeline newest first, entries of the same moment too', async () => {
    const [imported, held] = detailOf().timeline as [TimelineEntry, TimelineEntry];
    const allocated: TimelineEntry = {
      ...imported,
      id: 'tl_1b',
      kind: 'allocated',
      message: '1 × MUG-1 reserved at North store.',
      toStatus: null,
    };
    await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        ...listHandlers,
        // As the server sends them: oldest first, the import and its allocation written at one moment.
        'orders.get': () => detailOf({ timeline: [imported, allocated, held] }),
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
      },
    });
    await screen.findByText('Put on hold: waiting for the customer', {}, SLOW);
    const timeline = document.querySelector('[aria-label="Timeline"]') as HTMLElement;
    const texts = [...timeline.querySelectorAll('.mantine-Timeline-item')].map((item) => item.textContent ?? '');
    expect(texts.map((t) => ['Put on hold', 'reserved at', 'Imported from'].find((k) => t.includes(k)))).toEqual([
      'Put on hold',
      'reserved at',
      'Imported from',
    ]);
  });

  it('names the channel once in the header when it is named after its type, and with its type otherwise', async () => {
    const detail = (name: string) =>
      renderApp('/orders/ord_1', {
        signedIn: true,
        handlers: {
          ...listHandlers,
          'orders.get': () => detailOf({ channel: { id: 'chn_1', name, type: 'shopify' } }),
          'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
        },
      });
    const { unmount } = await detail('Shopify');
    const named = (await screen.findByRole('link', { name: 'Shopify' }, SLOW)).parentElement as HTMLElement;
    expect(named.textContent).not.toContain('(Shopify)');
    unmount();
    await detail('Main Shopify');
    const other = (await screen.findByRole('link', { name: 'Main Shopify' }, SLOW)).parentElement as HTMLElement;
    expect(other.textContent).toContain('Main Shopify (Shopify)');
  });

  it("links each of the order's returns like the app's other links, in a table that scrolls on a phone", async () => {
    const ret: Return = {
      id: 'ret_1',
      external_id: 'gid://shopify/Refund/7000001000138',
      channel_id: 'chn_1',
      order_external_id: 'gid://shopify/Order/1',
      order_id: 'ord_1',
      order_number: '#1001',
      status: 'FINISHED',
      message: null,
      currency: 'USD',
      tax: 0,
      adjustment: 0,
      total: 1000,
      bill_name: null,
      receipt_number: null,
      source: 'switchyard',
      refund_state: 'ok',
      refund_message: null,
      created_at: T0,
      provider_created_at: null,
      items: [],
    };
    await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        ...detailHandlers,
        'returns.forOrder': () => [ret],
      },
    });
    const table = await screen.findByRole('table', { name: 'Returns of this order' }, SLOW);
    const link = within(table).getByRole('link', { name: ret.external_id });
    expect(link).toHaveAttribute(
      'href',
      `/returns?external_id=${encodeURIComponent(ret.external_id)}&limit=25&offset=0`,
    );
    // A bare router link had the browser's own link colours (dark blue on the dark theme's dark card).
    expect(link).toHaveClass('mantine-Anchor-root');
    // Five columns do not fit a 390 px card: they scroll sideways rather than squeezing the status badge to "F…".
    expect(table.closest('.mantine-TableScrollContainer-scrollContainer')).not.toBeNull();
  });

  it('lays the lines to return in a table that scrolls sideways in a phone-wide dialog', async () => {
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        ...listHandlers,
        'orders.get': () => detailOf({ status: 3 }),
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
        'returns.forOrder': () => [],
        'locations.list': () => ({ results: [], total: 0, limit: 500, offset: 0 }),
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Create return' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Return from order #1001' }, SLOW);
    const lines = within(dialog).getByRole('table', { name: 'Lines to return' });
    // At 390 px the Refund column was cut off at the dialog's edge.
    expect(lines.closest('.mantine-TableScrollContainer-scrollContainer')).not.toBeNull();
  });

  it('adds a comment once it passes the contract, and shows it', async () => {
    const comments: Comment[] = [];
    const added: unknown[] = [];
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        'orders.get': () => detailOf(),
        'comments.list': () => ({ results: [...comments], total: comments.length, limit: 200, page: 1 }),
        'comments.add': (input) => {
          added.push(input);
          const comment: Comment = {
            id: 'cmt_1',
            entity_id: 'ord_1',
            type: 'order',
            text: (input as Comment).text,
            author: 'Ada Lovelace',
            created_at: T0,
          };
          comments.unshift(comment);
          return comment;
        },
      },
    });
    expect(await screen.findByText('No comments yet.', {}, SLOW)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add comment' }));
    expect(screen.getByText(ORDER_MESSAGES.commentEmpty)).toBeInTheDocument();
    expect(added).toEqual([]);

    await user.type(screen.getByRole('textbox', { name: 'Add a comment' }), 'Customer called: leave at the door');
    await user.click(screen.getByRole('button', { name: 'Add comment' }));
    const list = await screen.findByRole('list', { name: 'Comments' }, SLOW);
    expect(within(list).getByText('Customer called: leave at the door')).toBeInTheDocument();
    expect(added).toEqual([{ entity_id: 'ord_1', type: 'order', text: 'Customer called: leave at the door' }]);
    expect(screen.getByRole('textbox', { name: 'Add a comment' })).toHaveValue('');
  });

  it('offers only the allowed statuses and shows a refusal', async () => {
    const calls: unknown[] = [];
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        'orders.get': () => detailOf({ status: 1 }),
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
        'orders.setStatus': (input) => {
          calls.push(input);
          throw new ProcedureError('CONFLICT', ORDER_MESSAGES.transition(1, 9));
        },
      },
    });
    await user.click(await screen.findByLabelText('Change status to', { selector: 'input' }, SLOW));
    const options = await screen.findAllByRole('option', {}, SLOW);
    expect(options.map((option) => option.textContent)).toEqual(['On hold', 'Error']);
    await user.click(screen.getByRole('option', { name: 'Error' }));
    await user.click(screen.getByRole('button', { name: 'Change status' }));
    expect(await screen.findByText(ORDER_MESSAGES.transition(1, 9), {}, SLOW)).toBeInTheDocument();
    expect(calls).toEqual([{ id: 'ord_1', status: 9, reason: undefined }]);
  });

  it('cancels only after confirming, and then no longer offers it', async () => {
    let order = detailOf();
    const calls: unknown[] = [];
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        'orders.get': () => order,
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
        'orders.cancel': (input) => {
          calls.push(input);
          order = detailOf({
            status: 7,
            cancellable: false,
            allowedStatuses: [],
            cancelledAt: T0,
            cancelReason: 'Out of stock',
          });
          return order;
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Cancel order' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel order #1001?' }, SLOW);
    await user.click(within(dialog).getByRole('button', { name: 'Keep the order' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), SLOW);
    expect(calls).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Cancel order' }));
    const again = await screen.findByRole('dialog', { name: 'Cancel order #1001?' }, SLOW);
    await user.type(within(again).getByRole('textbox', { name: 'Reason (optional)' }), 'Out of stock');
    await user.click(within(again).getByRole('button', { name: 'Cancel order' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Cancel order' })).not.toBeInTheDocument(), SLOW);
    expect(calls).toEqual([{ id: 'ord_1', reason: 'Out of stock' }]);
    expect(screen.getByText(/Out of stock/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Change status to')).not.toBeInTheDocument();
  });

  it('edits the shipping address with validation, and the timeline shows the change', async () => {
    let order = detailOf();
    const calls: unknown[] = [];
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        'orders.get': () => order,
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
        'orders.update': (input) => {
          calls.push(input);
          const { shipping_address } = input as { shipping_address: OrderDetail['shippingAddress'] };
          order = detailOf({
            shippingAddress: shipping_address,
            timeline: [
              ...order.timeline,
              {
                id: 'tl_3',
                kind: 'updated',
                message: 'Changed the shipping address.',
                actor: 'Ada Lovelace',
                fromStatus: null,
                toStatus: null,
                outcome: null,
                createdAt: new Date(T0.getTime() + 120_000),
              },
            ],
          });
          return order;
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Edit shipping address' }, SLOW));
    const form = await screen.findByRole('form', { name: 'Shipping address' }, SLOW);
    expect(within(form).getByRole('textbox', { name: 'Address' })).toHaveValue('1 Engine Row');
    await user.clear(within(form).getByRole('textbox', { name: 'Address' }));
    await user.clear(within(form).getByRole('textbox', { name: 'City' }));
    await user.type(within(form).getByRole('textbox', { name: 'Phone' }), 'call me');
    await user.click(within(form).getByRole('button', { name: 'Save address' }));
    expect(within(form).getByText('Enter the address.')).toBeInTheDocument();
    expect(within(form).getByText('Enter the city.')).toBeInTheDocument();
    expect(within(form).getByText(/^Enter a phone number/)).toBeInTheDocument();
    expect(calls).toEqual([]);

    await user.type(within(form).getByRole('textbox', { name: 'Address' }), '12 Analytical Street');
    await user.type(within(form).getByRole('textbox', { name: 'City' }), 'Manchester');
    await user.clear(within(form).getByRole('textbox', { name: 'Phone' }));
    await user.click(within(form).getByRole('button', { name: 'Save address' }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Shipping address' })).not.toBeInTheDocument(), SLOW);
    expect(calls).toEqual([
      {
        id: 'ord_1',
        shipping_address: {
          name: 'Ada Lovelace',
          company: null,
          address1: '12 Analytical Street',
          address2: null,
          city: 'Manchester',
          province: null,
          zip: 'N1',
          country: 'GB',
          phone: null,
        },
      },
    ]);
    expect(screen.getByText('12 Analytical Street', { exact: false })).toBeInTheDocument();
    expect(screen.getByText('Changed the shipping address.')).toBeInTheDocument();
  });
});
