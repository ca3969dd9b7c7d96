import { ORDER_TRANSITIONS, type OrderDetail, type Shipment, type ShipmentRate } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../test/render-app.tsx';
import { ProcedureError } from '../../test/trpc-stub.ts';

const SLOW = { timeout: 5000 };
const T0 = new Date('2026-11-20T10:00:00.000Z');

const order: OrderDetail = {
  id: 'ord_1',
  channel: { id: 'chn_1', name: 'Main Shopify', type: 'shopify' },
  externalId: 'gid://shopify/Order/1',
  number: '#1001',
  status: 1,
  fulfillmentType: 'ship',
  customerName: 'Ada Lovelace',
  customerEmail: 'ada@example.com',
  currency: 'USD',
  total: 2000,
  financialStatus: 'paid',
  itemCount: 1,
  flagged: false,
  placedAt: T0,
  updatedAt: T0,
  customerPhone: null,
  shippingAddress: { name: 'Ada Lovelace', address1: '9 Pine St', city: 'Seattle', zip: '98101', country: 'US' },
  billingAddress: null,
  pickupLocation: null,
  subtotal: 2000,
  shippingTotal: 0,
  discountTotal: 0,
  taxTotal: 0,
  note: null,
  tags: [],
  cancelledAt: null,
  cancelReason: null,
  channelUrl: null,
  allowedStatuses: [...ORDER_TRANSITIONS[1]],
  cancellable: true,
  lines: [
    {
      id: 'lin_1',
      externalId: 'l1',
      sku: 'MUG-RED',
      variantId: 'var_1',
      productId: 'prd_1',
      title: 'Red mug',
      quantity: 1,
      unitPrice: 2000,
      discount: 0,
      tax: 0,
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
          status: 2,
          reason: null,
        },
      ],
    },
  ],
  timeline: [],
};

const rate = (carrier: string, service: string, amount: number, days: number, extra: Partial<ShipmentRate> = {}) => ({
  key: `${carrier}:${service}`,
  carrier,
  service,
  amount,
  currency: 'USD',
  deliveryDays: days,
  cheapest: false,
  fastest: false,
  ...extra,
});

const rated: Shipment = {
  id: 'shp_1',
  orderId: 'ord_1',
  store: { id: 'loc_1', name: 'North store', storeId: 'N1' },
  status: 'rated',
  carrier: null,
  service: null,
  amount: null,
  currency: null,
  labelSize: '4x6',
  trackingCode: null,
  trackingUrl: null,
  trackingStatus: null,
  channelStatus: null,
  channelMessage: null,
  error: null,
  rates: [
    rate('USPS', 'GroundAdvantage', 812, 4, { cheapest: true }),
    rate('USPS', 'Priority', 1190, 2),
    rate('UPS', 'NextDayAir', 5210, 1, { fastest: true }),
  ],
  packages: [
    {
      position: 1,
      weight: 12,
      length: null,
      width: null,
      height: null,
      trackingCode: null,
      trackingUrl: null,
      trackingStatus: null,
      hasLabel: false,
    },
  ],
  items: [{ allocationId: 'alc_1', lineId: 'lin_1', sku: 'MUG-RED', title: 'Red mug', quantity: 1 }],
  createdAt: T0,
  purchasedAt: null,
};

const purchased: Shipment = {
  ...rated,
  status: 'purchased',
  carrier: 'USPS',
  service: 'GroundAdvantage',
  amount: 812,
  currency: 'USD',
  trackingCode: '9400100000000000000001',
  trackingUrl: 'https://track.example/9400100000000000000001',
  trackingStatus: 'pre_transit',
  channelStatus: 'pending',
  packages: [
    {
      ...(rated.packages[0] as Shipment['packages'][number]),
      trackingCode: '9400100000000000000001',
      trackingUrl: 'https://track.example/9400100000000000000001',
      trackingStatus: 'pre_transit',
      hasLabel: true,
    },
  ],
  purchasedAt: T0,
};

const settings = { label_size: '4x6', weight_unit: 'oz', default_package: null, services: [] };

beforeEach(() => {
  vi.spyOn(window, 'open').mockImplementation(() => ({}) as Window);
  URL.createObjectURL = vi.fn(() => 'blob:label');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => vi.restoreAllMocks());

describe('buy label', { timeout: 60_000 }, () => {
  it('gets rates for the parcel, marks cheapest and fastest, buys once on a double click, and prints', async () => {
    const shipments: Shipment[] = [];
    const creates: unknown[] = [];
    const buys: unknown[] = [];
    let release: () => void = () => undefined;
    const { user, rest } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        'orders.get': () => order,
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
        'shipments.settings': () => settings,
        'shipments.list': () => ({ results: [...shipments] }),
        'shipments.create': (input) => {
          creates.push(input);
          return rated;
        },
        'shipments.buy': async (input) => {
          buys.push(input);
          await new Promise<void>((r) => {
            release = r;
          });
          shipments.push(purchased);
          return purchased;
        },
      },
      rest: { 'POST /api/frontend/shipping/getShippingLabel': () => ({ body: '%PDF-1.3' }) },
    });
    const section = await screen.findByRole('region', { name: 'Shipments' }, SLOW);
    expect(await within(section).findByText('No label bought yet.')).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Buy label' }));
    // The button is gone: the keyboard is in the form's first field.
    await waitFor(() => expect(screen.getByLabelText(/Weight \(oz\)/)).toHaveFocus());

    // No weight: the contract's message, and no call.
    await user.click(screen.getByRole('button', { name: 'Get rates' }));
    expect(await screen.findByText('Weigh the parcel (oz).')).toBeInTheDocument();
    expect(creates).toEqual([]);
    await user.type(screen.getByLabelText(/Weight \(oz\)/), '12');
    await user.click(screen.getByRole('button', { name: 'Get rates' }));

    const table = await screen.findByTestId('rates-table');
    expect(creates).toEqual([expect.objectContaining({ id: 'ord_1', label_size: '4x6', packages: [{ weight: 12 }] })]);
    const ground = within(table).getByTestId('rate-USPS:GroundAdvantage');
    expect(within(ground).getByText('Cheapest')).toBeInTheDocument();
    expect(within(ground).getByRole('radio')).toBeChecked();
    expect(within(within(table).getByTestId('rate-UPS:NextDayAir')).getByText('Fastest')).toBeInTheDocument();

    // A double click: the button is disabled while the first purchase runs, so one call goes out.
    const buy = screen.getByTestId('buy-label-confirm');
    await user.dblClick(buy);
    await waitFor(() => expect(buy).toBeDisabled());
    release();
    expect(await screen.findByTestId('tracking-link', {}, SLOW)).toHaveAttribute(
      'href',
      'https://track.example/9400100000000000000001',
    );
    expect(buys).toEqual([{ id: 'ord_1', shipment_id: 'shp_1', rate: 'USPS:GroundAdvantage' }]);
    expect(screen.getByTestId('tracking-status')).toHaveTextContent('Label created');
    expect(screen.getByText('Sending to the channel')).toBeInTheDocument();
    // Its parcel and the one unit in it ("1 units").
    expect(screen.getByText(/· 1 parcel · 1 unit$/)).toBeInTheDocument();
    // The label opened to print once bought.
    await waitFor(() => expect(rest.calls.map((c) => c.data)).toContainEqual({ shipment_id: 'shp_1' }));
    expect(window.open).toHaveBeenCalledWith('blob:label', '_blank', 'noopener');
  });

  it("shows the carrier's reason when it refuses", async () => {
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        'orders.get': () => order,
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
        'shipments.settings': () => ({ ...settings, default_package: { weight: 16 }, weight_unit: 'lb' }),
        'shipments.list': () => ({ results: [] }),
        'shipments.create': () => rated,
        'shipments.buy': () => {
          throw new ProcedureError('BAD_REQUEST', 'The carrier refused: USPS: Address not found.');
        },
      },
    });
    const section = await screen.findByRole('region', { name: 'Shipments' }, SLOW);
    await user.click(within(section).getByRole('button', { name: 'Buy label' }));
    // The default parcel, in the account's unit.
    expect(await screen.findByLabelText(/Weight \(lb\)/)).toHaveValue('1');
    await user.click(screen.getByRole('button', { name: 'Get rates' }));
    await user.click(await screen.findByTestId('buy-label-confirm'));
    expect(await screen.findByTestId('buy-error')).toHaveTextContent('The carrier refused: USPS: Address not found.');
  });

  it("closes the form from the title's row, as a modal does, and gives the keyboard back to Buy label", async () => {
    const { user } = await renderApp('/orders/ord_1', {
      signedIn: true,
      handlers: {
        'orders.get': () => order,
        'comments.list': () => ({ results: [], total: 0, limit: 200, page: 1 }),
        'shipments.settings': () => settings,
        'shipments.list': () => ({ results: [] }),
      },
    });
    const section = await screen.findByRole('region', { name: 'Shipments' }, SLOW);
    await user.click(within(section).getByRole('button', { name: 'Buy label' }));
    await within(section).findByTestId('buy-label-form');
    // The close button shares the heading's row (a "Close" under the form stood indented on its own at 390 px).
    const title = within(section).getByRole('heading', { name: 'Shipments' });
    const close = within(section).getByRole('button', { name: 'Close the label form' });
    expect(close.parentElement).toBe(title.parentElement);
    expect(within(section).queryByRole('button', { name: 'Close' })).not.toBeInTheDocument();

    await user.click(close);
    expect(within(section).queryByTestId('buy-label-form')).not.toBeInTheDocument();
    expect(within(section).getByRole('button', { name: 'Buy label' })).toHaveFocus();
  });

  it('saves the label settings of Settings → Fulfillment', async () => {
    const saved: unknown[] = [];
    const { user } = await renderApp('/settings/fulfillment', {
      signedIn: true,
      handlers: {
        'shipments.settings': () => settings,
        'shipments.updateSettings': (input) => {
          saved.push(input);
          return input;
        },
      },
    });
    const section = await screen.findByRole('region', { name: 'Labels' }, SLOW);
    await user.click(await within(section).findByRole('radio', { name: 'Letter' }, SLOW));
    await user.type(within(section).getByLabelText('Weight (oz)'), '20');
    await user.click(within(section).getByRole('checkbox', { name: 'USPS Priority' }));
    await user.click(within(section).getByRole('button', { name: 'Save label settings' }));
    await waitFor(() =>
      expect(saved).toEqual([
        { label_size: 'letter', weight_unit: 'oz', default_package: { weight: 20 }, services: ['USPS:Priority'] },
      ]),
    );
  });
});
