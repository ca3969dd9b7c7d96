import {
  type AllocationRow,
  type AllocationUpdateResult,
  type OrderDetail,
  type OrderRoutingDecisions,
  ROUTING_MESSAGES,
  type RoutingDecision,
} from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { LOCATIONS, T0, TRACE, TRACE_LINE } from '../../../test/routing-fixtures.ts';

const SLOW = { timeout: 5000 };

type Allocation = OrderDetail['lines'][number]['allocations'][number];

const DOWNTOWN: Allocation = {
  id: 'alloc_1',
  locationId: 'loc_downtown',
  locationName: 'Downtown Store',
  storeId: 'LOC_DOWNTOWN',
  quantity: 2,
  reserved: 2,
  status: 1,
  reason: null,
};

function orderWith(allocations: Allocation[], timeline: OrderDetail['timeline'] = []): OrderDetail {
  return {
    id: 'ord_1',
    channel: { id: 'chn_shop', name: 'Harbor Shop', type: 'shopify' },
    externalId: 'gid://shopify/Order/1',
    number: '#1001',
    status: 1,
    fulfillmentType: 'ship',
    customerName: 'Grace Hopper',
    customerEmail: 'grace@example.com',
    currency: 'USD',
    total: 2400,
    financialStatus: 'paid',
    itemCount: 2,
    flagged: allocations.some((a) => [0, 4, 5].includes(a.status) && !allocations.some((b) => b.status === 1)),
    placedAt: T0,
    updatedAt: T0,
    customerPhone: null,
    shippingAddress: { address1: '500 Electric Ave', city: 'Portland', province: 'OR', zip: '97205', country: 'US' },
    billingAddress: null,
    pickupLocation: null,
    subtotal: 2400,
    shippingTotal: 0,
    discountTotal: 0,
    taxTotal: 0,
    note: null,
    tags: [],
    cancelledAt: null,
    cancelReason: null,
    channelUrl: null,
    allowedStatuses: [6, 9],
    cancellable: true,
    lines: [
      {
        id: 'line_1',
        externalId: '1',
        sku: 'MUG-1',
        variantId: 'var_1',
        productId: 'prd_1',
        title: 'Summit Mug',
        quantity: 2,
        unitPrice: 1200,
        discount: 0,
        tax: 0,
        fulfilledQty: 0,
        cancelledQty: 0,
        refundedQty: 0,
        unknownSku: false,
        allocations,
      },
    ],
    timeline,
  };
}

const initialDecision: RoutingDecision = {
  id: 'dec_1',
  orderId: 'ord_1',
  kind: 'initial',
  ruleSetVersion: 2,
  allocationIds: ['alloc_1'],
  actor: null,
  trace: TRACE,
  createdAt: T0,
};

const row = (a: Allocation): AllocationRow => ({
  ...a,
  orderId: 'ord_1',
  orderNumber: '#1001',
  lineId: 'line_1',
  sku: 'MUG-1',
  title: 'Summit Mug',
  createdAt: T0,
  updatedAt: T0,
});

/** The order page's reads: the order, no comments, its routing decisions, and the locations a reassign offers. */
const orderPage = (order: () => OrderDetail, decisions: () => RoutingDecision[] = () => [initialDecision]) => ({
  'orders.get': order,
  'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
  'routing.decisions': (): OrderRoutingDecisions => ({ orderId: 'ord_1', decisions: decisions() }),
  'routing.locations': () => LOCATIONS,
});

describe('order detail: why this store, reject and reassign', { timeout: 60_000 }, () => {
  it('explains each allocation from the stored decision, with every location and rule on request', async () => {
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: orderPage(() => orderWith([DOWNTOWN])),
    });
    const lines = await screen.findByRole('table', { name: 'Lines' }, SLOW);
    expect(await within(lines).findByText(TRACE_LINE.explanation, {}, SLOW)).toBeInTheDocument();
    expect(within(lines).getByText('Why this store:')).toBeInTheDocument();
    expect(within(lines).getByText('Routed by rules version 2')).toBeInTheDocument();
    await user.click(within(lines).getByRole('button', { name: 'Every location and rule' }));
    const table = within(lines).getByRole('table', { name: 'Locations for MUG-1 × 2' });
    expect(within(table).getByText('Chosen: 2 units')).toBeInTheDocument();
    expect(within(table).getByText('Has 0 available, 2 needed.')).toBeInTheDocument();
    expect(
      within(lines).getByText('Seattle only did not apply: The destination region is OR, not WA.'),
    ).toBeInTheDocument();
  });

  it('rejects a line for its store with a reason: routed again, the timeline says so', async () => {
    let order = orderWith([DOWNTOWN]);
    let decisions: RoutingDecision[] = [initialDecision];
    const rejected: unknown[] = [];
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: orderPage(
        () => order,
        () => decisions,
      ),
      rest: {
        'POST /api/frontend/shipping/updateLocationOrderItem': (input) => {
          rejected.push(input);
          const gone = { ...DOWNTOWN, status: 5, reason: 'Shelf is empty' };
          const eastside: Allocation = {
            id: 'alloc_2',
            locationId: 'loc_eastside',
            locationName: 'Eastside Store',
            storeId: 'LOC_EASTSIDE',
            quantity: 2,
            reserved: 2,
            status: 1,
            reason: null,
          };
          order = orderWith(
            [gone, eastside],
            [
              {
                id: 'tl_9',
                kind: 'allocated',
                message: 'Downtown Store rejected MUG-1 × 2: Shelf is empty. Routed again to Eastside Store.',
                actor: 'Ada Lovelace',
                fromStatus: null,
                toStatus: null,
                outcome: null,
                createdAt: T0,
              },
            ],
          );
          const reroute: RoutingDecision = {
            ...initialDecision,
            id: 'dec_2',
            kind: 'reroute',
            actor: 'Ada Lovelace',
            allocationIds: ['alloc_2'],
            trace: {
              ...TRACE,
              withoutLocationIds: ['loc_downtown'],
              lines: [{ ...TRACE_LINE, explanation: 'Eastside Store is the nearest other location with 2 units.' }],
            },
          };
          decisions = [reroute, ...decisions];
          const result: AllocationUpdateResult = {
            orderId: 'ord_1',
            allocations: [row(gone), row(eastside)],
            decision: reroute,
            flagged: false,
          };
          return { body: result };
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Reject MUG-1 at Downtown Store' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Reject MUG-1 at Downtown Store?' });
    await user.click(within(dialog).getByRole('button', { name: 'Reject and route again' }));
    expect(within(dialog).getByText(ROUTING_MESSAGES.reasonRequired)).toBeInTheDocument();
    expect(rejected).toEqual([]);

    await user.type(within(dialog).getByRole('textbox', { name: /Reason/ }), 'Shelf is empty');
    await user.click(within(dialog).getByRole('button', { name: 'Reject and route again' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), SLOW);
    // SPEC §7: the frontend call, naming the store that says no.
    expect(rejected).toEqual([
      { action: 'reject', id: 'alloc_1', reason: 'Shelf is empty', location_id: 'loc_downtown' },
    ]);
    expect(await screen.findByText('Routed again: now at Eastside Store', {}, SLOW)).toBeInTheDocument();

    const lines = screen.getByRole('table', { name: 'Lines' });
    expect(
      await within(lines).findByRole('button', { name: 'Reject MUG-1 at Eastside Store' }, SLOW),
    ).toBeInTheDocument();
    expect(within(lines).getByText('Rejected by the store')).toBeInTheDocument();
    expect(within(lines).getByText('Shelf is empty')).toBeInTheDocument();
    expect(
      await within(lines).findByText('Eastside Store is the nearest other location with 2 units.', {}, SLOW),
    ).toBeInTheDocument();
    expect(within(lines).getByText('Routed again by rules version 2 · asked by Ada Lovelace')).toBeInTheDocument();
    expect(
      screen.getByText('Downtown Store rejected MUG-1 × 2: Shelf is empty. Routed again to Eastside Store.'),
    ).toBeInTheDocument();
    // The rejected allocation can no longer be rejected; the new one can.
    expect(screen.getAllByRole('button', { name: /^Reject / })).toHaveLength(1);
  });

  it('closes the reassign dialog at the first Escape: the location list waits to be opened', async () => {
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: orderPage(() => orderWith([DOWNTOWN])),
    });
    await user.click(await screen.findByRole('button', { name: 'Reassign MUG-1 at Downtown Store' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Reassign MUG-1 at Downtown Store' });
    expect(dialog).toHaveTextContent('The 2 units move to the location you choose, if it has them available');
    await waitFor(() => expect(within(dialog).getByLabelText(/Send from/, { selector: 'input' })).toHaveFocus());
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), SLOW);
  });

  it('reassigns a line by hand, showing a refusal for a location without the stock', async () => {
    let order = orderWith([DOWNTOWN]);
    const asked: unknown[] = [];
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: orderPage(() => order),
      rest: {
        'POST /api/frontend/shipping/updateLocationOrderItem': (input) => {
          asked.push(input);
          const { location_id: locationId } = input as { location_id: string };
          if (locationId === 'loc_warehouse')
            return { status: 409, body: { code: 409, message: ROUTING_MESSAGES.notEnoughStock('Warehouse', 0, 2) } };
          const moved = { ...DOWNTOWN, locationId, locationName: 'Eastside Store' };
          order = orderWith([moved]);
          const result: AllocationUpdateResult = {
            orderId: 'ord_1',
            allocations: [row(moved)],
            decision: null,
            flagged: false,
          };
          return { body: result };
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Reassign MUG-1 at Downtown Store' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Reassign MUG-1 at Downtown Store' });
    await user.click(within(dialog).getByRole('button', { name: 'Reassign' }));
    expect(within(dialog).getByText('Choose the location to send it from')).toBeInTheDocument();

    const select = within(dialog).getByLabelText(/Send from/, { selector: 'input' });
    await user.click(select);
    // The current location is not offered; a disabled one is, but cannot be chosen.
    const options = await screen.findAllByRole('option', {}, SLOW);
    expect(options.map((o) => o.textContent)).toEqual(['Warehouse', 'Eastside Store', 'Seattle Store (disabled)']);
    await user.click(screen.getByRole('option', { name: 'Warehouse' }));
    await user.click(within(dialog).getByRole('button', { name: 'Reassign' }));
    expect(await within(dialog).findByText('Warehouse has 0 available, 2 needed', {}, SLOW)).toBeInTheDocument();

    await user.click(select);
    await user.click(await screen.findByRole('option', { name: 'Eastside Store' }, SLOW));
    await user.click(within(dialog).getByRole('button', { name: 'Reassign' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), SLOW);
    expect(asked).toEqual([
      { action: 'reassign', id: 'alloc_1', location_id: 'loc_warehouse' },
      { action: 'reassign', id: 'alloc_1', location_id: 'loc_eastside' },
    ]);
    expect(await screen.findByText('Moved to Eastside Store', {}, SLOW)).toBeInTheDocument();
  });
});
