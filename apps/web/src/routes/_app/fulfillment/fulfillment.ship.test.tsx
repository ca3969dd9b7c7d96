// Shipping part of an order from the store's detail (issue 15): each line still to ship takes how many of its units
// go in the parcel; the request carries them; a line at 0 stays out, all at 0 cannot be rated; after a partial
// purchase the detail shows what is left and the next shipment defaults to it.
import type { FulfillmentOrder, Shipment } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';

const SLOW = { timeout: 5000 };
const T0 = new Date('2026-11-20T10:00:00.000Z');
const STORE = { id: 'loc_1', storeId: 'S1', name: 'Downtown', enabled: true, ships: true, pickup: true };

const line = (n: number, sku: string, quantity: number, toShip: number): FulfillmentOrder['lines'][number] => ({
  allocationId: `oal_${n}`,
  lineId: `oli_${n}`,
  sku,
  barcode: null,
  title: `${sku} title`,
  quantity,
  toShip,
  scanned: toShip,
  status: 2,
  reason: null,
});

const PACKED: FulfillmentOrder = {
  id: 'ord_9',
  number: '#1009',
  channel: { id: 'chn_1', name: 'Main Shopify', type: 'shopify' },
  status: 1,
  fulfillmentType: 'ship',
  customerName: 'Ada Lovelace',
  customerEmail: 'ada@example.com',
  customerPhone: null,
  note: null,
  flagged: false,
  store: STORE,
  lines: [line(1, 'TEE-1', 3, 3), line(2, 'CAP-1', 1, 1)],
  step: 'ship',
  packed: true,
  canReadyForPickup: false,
  canPickUp: false,
};

const rated = (items: Shipment['items']): Shipment => ({
  id: 'shp_1',
  orderId: 'ord_9',
  store: { id: 'loc_1', name: 'Downtown', storeId: 'S1' },
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
    {
      key: 'USPS:GroundAdvantage',
      carrier: 'USPS',
      service: 'GroundAdvantage',
      amount: 812,
      currency: 'USD',
      deliveryDays: 4,
      cheapest: true,
      fastest: true,
    },
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
  items,
  createdAt: T0,
  purchasedAt: null,
});

const settings = { label_size: '4x6', weight_unit: 'oz', default_package: { weight: 12 }, services: [] };

beforeEach(() => {
  vi.spyOn(window, 'open').mockImplementation(() => ({}) as Window);
  URL.createObjectURL = vi.fn(() => 'blob:label');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => vi.restoreAllMocks());

async function openForm(order: () => FulfillmentOrder, extra: Record<string, (input: unknown) => unknown> = {}) {
  const creates: { items?: unknown }[] = [];
  const view = await renderApp('/fulfillment/ord_9?store_id=S1', {
    signedIn: true,
    handlers: {
      'fulfillment.get': () => order(),
      'shipments.settings': () => settings,
      'shipments.list': () => ({ results: [] }),
      'shipments.create': (input) => {
        creates.push(input as { items?: unknown });
        const items = ((input as { items?: { allocation_id: string; quantity: number }[] }).items ?? []).map((i) => ({
          allocationId: i.allocation_id,
          lineId: i.allocation_id.replace('oal', 'oli'),
          sku: null,
          title: '',
          quantity: i.quantity,
        }));
        return rated(items);
      },
      ...extra,
    },
    rest: { 'POST /api/frontend/shipping/getShippingLabel': () => ({ body: '%PDF-1.3' }) },
  });
  const section = await screen.findByRole('region', { name: 'Shipments' }, SLOW);
  await view.user.click(within(section).getByRole('button', { name: 'Buy label' }));
  return { ...view, creates, section };
}

describe('shipping part of an order', { timeout: 60_000 }, () => {
  it('sends the units chosen per line, leaves a line at 0 out, and defaults the next shipment to what is left', async () => {
    let order = PACKED;
    const buys: unknown[] = [];
    const { user, creates } = await openForm(() => order, {
      'shipments.buy': (input) => {
        buys.push(input);
        // One of the three tees left; the cap stays.
        order = { ...PACKED, status: 2, lines: [line(1, 'TEE-1', 3, 2), line(2, 'CAP-1', 1, 1)] };
        return { ...rated([]), status: 'purchased', carrier: 'USPS', service: 'GroundAdvantage', trackingCode: '9400' };
      },
    });
    const tees = await screen.findByRole('textbox', { name: 'Units of TEE-1 to ship' }, SLOW);
    const caps = screen.getByRole('textbox', { name: 'Units of CAP-1 to ship' });
    // Each line defaults to all that is left.
    expect(tees).toHaveValue('3');
    expect(caps).toHaveValue('1');

    // More than is left says so, and asks the carrier nothing.
    await user.clear(tees);
    await user.type(tees, '5');
    expect(await screen.findByText('Only 3 units are left to ship.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Get rates' }));
    expect(creates).toEqual([]);

    // Keyboard only: 1 tee, no cap.
    await user.clear(tees);
    await user.type(tees, '1');
    await user.clear(caps);
    await user.type(caps, '0');
    expect(screen.queryByText('Only 3 units are left to ship.')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Get rates' }));
    await screen.findByTestId('rates-table', {}, SLOW);
    expect(creates).toEqual([
      expect.objectContaining({ id: 'ord_9', store_id: 'S1', items: [{ allocation_id: 'oal_1', quantity: 1 }] }),
    ]);
    await user.click(screen.getByTestId('buy-label-confirm'));
    await waitFor(() => expect(buys).toEqual([{ id: 'ord_9', shipment_id: 'shp_1', rate: 'USPS:GroundAdvantage' }]));

    // The detail shows what is left of the tee line, and the next shipment defaults to it.
    const lines = await screen.findByRole('table', { name: 'Lines to fulfil' });
    expect(await within(lines).findByLabelText('2 left to ship', {}, SLOW)).toBeInTheDocument();
    expect(within(lines).getByText('1 of 3 shipped')).toBeInTheDocument();
    expect(within(lines).getByLabelText('2 of 2 picked')).toBeInTheDocument();
    const section = screen.getByRole('region', { name: 'Shipments' });
    await user.click(await within(section).findByRole('button', { name: 'Buy label' }, SLOW));
    expect(await screen.findByRole('textbox', { name: 'Units of TEE-1 to ship' }, SLOW)).toHaveValue('2');
    expect(screen.getByRole('textbox', { name: 'Units of CAP-1 to ship' })).toHaveValue('1');
  });

  it('cannot ask for rates with every line at 0, and says why', async () => {
    const { user, creates } = await openForm(() => PACKED);
    const tees = await screen.findByRole('textbox', { name: 'Units of TEE-1 to ship' }, SLOW);
    const caps = screen.getByRole('textbox', { name: 'Units of CAP-1 to ship' });
    await user.clear(tees);
    await user.type(tees, '0');
    await user.clear(caps);
    await user.type(caps, '0');
    const getRates = screen.getByRole('button', { name: 'Get rates' });
    expect(getRates).toBeDisabled();
    expect(getRates).toHaveAccessibleDescription('Choose at least one unit to ship: every line is at 0.');
    expect(screen.getByText('Choose at least one unit to ship: every line is at 0.')).toBeInTheDocument();
    expect(creates).toEqual([]);

    // One unit back: rates can be asked for again.
    await user.clear(caps);
    await user.type(caps, '1');
    expect(getRates).toBeEnabled();
    expect(screen.queryByText('Choose at least one unit to ship: every line is at 0.')).not.toBeInTheDocument();
  });
});
