import type { ChannelSummary, Return, ReturnList } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError, type RecordedCall } from '../../../test/trpc-stub.ts';

const SLOW = { timeout: 5000 };
const T0 = new Date('2026-11-20T10:00:00.000Z');
const usd = (minor: number) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' }).format(minor / 100);

const CHANNELS: ChannelSummary[] = [
  {
    id: 'chn_1',
    type: 'shopify',
    name: 'Main Shopify',
    status: 'connected',
    externalId: 'main.myshopify.com',
    statusMessage: null,
    features: { inventory: true, catalog: true, orders: true, fulfillments: true },
    connectedAt: T0,
    lastSyncAt: T0,
    errorCount: 0,
    createdAt: T0,
  },
];

function returnOf(n: number, overrides: Partial<Return> = {}): Return {
  return {
    id: `ret_${n}`,
    external_id: `gid://shopify/Refund/${n}`,
    channel_id: 'chn_1',
    order_external_id: `gid://shopify/Order/${n}`,
    order_id: `ord_${n}`,
    order_number: `#${1000 + n}`,
    status: 'FINISHED',
    message: null,
    currency: 'USD',
    tax: 100 * n,
    adjustment: -50,
    total: 1000 * n,
    bill_name: null,
    receipt_number: null,
    source: 'channel',
    refund_state: null,
    refund_message: null,
    created_at: new Date(T0.getTime() - n * 60_000),
    provider_created_at: null,
    items: [
      {
        id: `rti_${n}a`,
        sku: `TEE-${n}`,
        qty: 2,
        return_store: 'S1',
        return_store_name: 'Downtown',
        total: 800,
        restock: true,
        channel_restocked: false,
        order_line_id: null,
      },
      {
        id: `rti_${n}b`,
        sku: `CAP-${n}`,
        qty: 1,
        return_store: 'S2',
        return_store_name: 'Uptown',
        total: 200,
        restock: false,
        channel_restocked: false,
        order_line_id: null,
      },
    ],
    ...overrides,
  };
}

/** 60 returns, newest first: #1 is in error, #2 skipped, #3 pending with a receipt number, #4 billed to a name. */
const RETURNS: Return[] = Array.from({ length: 60 }, (_, i) => {
  const n = i + 1;
  if (n === 1) return returnOf(n, { status: 'ERROR', message: 'SKU TEE-1 is not in your catalog.' });
  if (n === 2) return returnOf(n, { status: 'SKIPPED', message: 'Nothing to restock.' });
  if (n === 3) return returnOf(n, { status: 'PENDING', receipt_number: '#1003-R1' });
  if (n === 4) return returnOf(n, { bill_name: 'Mary Shelley-Returns', receipt_number: '#1004-R1' });
  return returnOf(n);
});

type ListInput = { external_id?: string; limit?: number; offset?: number };

const handlers = {
  'channels.list': () => CHANNELS,
  'returns.list': (input: unknown): ReturnList => {
    const i = (input ?? {}) as ListInput;
    const q = i.external_id?.toLowerCase();
    const rows = RETURNS.filter(
      (r) => !q || [r.external_id, r.order_external_id, r.order_number].some((t) => t?.toLowerCase().includes(q)),
    );
    const offset = i.offset ?? 0;
    const limit = i.limit ?? 25;
    return { results: rows.slice(offset, offset + limit), total: rows.length, limit, offset };
  },
};

const listCalls = (calls: RecordedCall[]) =>
  calls.flatMap((call) =>
    call.paths.flatMap((path, i) => (path === 'returns.list' ? [call.inputs[i] as ListInput] : [])),
  );

describe('returns list', { timeout: 30_000 }, () => {
  it('shows SPEC §2 columns: id, channel name, order link, status as SPEC §4 says, stores, tax, adjustment, total', async () => {
    await renderApp('/returns', { signedIn: true, handlers });
    const table = await screen.findByRole('table', { name: 'Returns' }, SLOW);
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual(['Details', 'Id', 'Channel', 'Order', 'Status', 'Store(s)', 'Tax', 'Adjustment', 'Total']);
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(26);
    const first = rows[1] as HTMLElement;
    expect(within(first).getByText('gid://shopify/Refund/1')).toBeInTheDocument();
    await waitFor(() => expect(within(first).getByText('Main Shopify')).toBeInTheDocument(), SLOW);
    expect(within(first).getByRole('link', { name: '#1001' })).toHaveAttribute('href', '/orders/ord_1');
    expect(within(first).getByText('Error')).toBeInTheDocument();
    expect(within(first).getByText('Downtown, Uptown')).toBeInTheDocument();
    expect(within(first).getByText(usd(100))).toBeInTheDocument();
    expect(within(first).getByText(usd(-50))).toBeInTheDocument();
    expect(within(first).getByText(usd(1000))).toBeInTheDocument();
    expect(within(rows[2] as HTMLElement).getByText('Skipped')).toBeInTheDocument();
    expect(within(rows[3] as HTMLElement).getByText('PENDING')).toBeInTheDocument();
    expect(within(rows[5] as HTMLElement).getByText('Finished')).toBeInTheDocument();
    expect(screen.getByText('60 returns')).toBeInTheDocument();
    expect(screen.getByText('1–25 of 60')).toBeInTheDocument();
  });

  it('expands a row to its receipt (bill name, else receipt number, else "(pending)") and its items', async () => {
    const { user } = await renderApp('/returns', { signedIn: true, handlers });
    await screen.findByRole('table', { name: 'Returns' }, SLOW);
    const toggle = screen.getByRole('button', { name: 'Show return gid://shopify/Refund/1' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(screen.getByRole('button', { name: 'Hide return gid://shopify/Refund/1' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
    const items = screen.getByRole('table', { name: 'Items of return gid://shopify/Refund/1' });
    expect(
      within(items)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['SKU', 'Qty', 'Return Store', 'Total']);
    const [, tee, cap] = within(items).getAllByRole('row');
    expect(within(tee as HTMLElement).getByText('TEE-1')).toBeInTheDocument();
    expect(within(tee as HTMLElement).getByText('Downtown')).toBeInTheDocument();
    expect(within(tee as HTMLElement).getByText(usd(800))).toBeInTheDocument();
    expect(within(cap as HTMLElement).getByText('Uptown')).toBeInTheDocument();
    expect(screen.getByText('(pending)')).toBeInTheDocument();
    expect(screen.getByText('SKU TEE-1 is not in your catalog.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Show return gid://shopify/Refund/3' }));
    expect(screen.getByText('#1003-R1')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show return gid://shopify/Refund/4' }));
    expect(screen.getByText('Mary Shelley-Returns')).toBeInTheDocument();
  });

  it('keeps external_id, limit and offset in the address; search waits 1 s, Clear empties it; pages and sizes', async () => {
    const { user, router, fetch } = await renderApp('/returns', { signedIn: true, handlers });
    const table = await screen.findByRole('table', { name: 'Returns' }, SLOW);
    expect(router.state.location.search).toEqual({ external_id: '', limit: 25, offset: 0 });

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByText('26–50 of 60')).toBeInTheDocument(), SLOW);
    expect(router.state.location.search).toEqual({ external_id: '', limit: 25, offset: 25 });

    await user.click(screen.getByRole('combobox', { name: 'Rows per page' }));
    await user.click(await screen.findByRole('option', { name: '50' }));
    await waitFor(() => expect(screen.getByText('1–50 of 60')).toBeInTheDocument(), SLOW);
    expect(router.state.location.search).toEqual({ external_id: '', limit: 50, offset: 0 });

    const box = screen.getByPlaceholderText('Search by order or return id');
    await user.click(box);
    await user.paste('Order/12');
    const typedAt = Date.now();
    await waitFor(() => expect(router.state.location.search).toMatchObject({ external_id: 'Order/12' }), SLOW);
    // SPEC §9: the returns search waits a whole second after the last key.
    expect(Date.now() - typedAt).toBeGreaterThanOrEqual(900);
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2), SLOW);
    expect(listCalls(fetch.calls).at(-1)).toMatchObject({ external_id: 'Order/12', offset: 0, limit: 50 });

    await user.click(screen.getByRole('button', { name: 'Clear' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ external_id: '', limit: 50, offset: 0 }), SLOW);
    expect(box).toHaveValue('');
    await waitFor(() => expect(screen.getByText('60 returns')).toBeInTheDocument(), SLOW);
  });

  it('reads the list again on Reload, says when there are none, and shows a load error', async () => {
    const { user, fetch, unmount } = await renderApp('/returns', { signedIn: true, handlers });
    await screen.findByRole('table', { name: 'Returns' }, SLOW);
    const before = listCalls(fetch.calls).length;
    await user.click(screen.getByRole('button', { name: 'Reload' }));
    await waitFor(() => expect(listCalls(fetch.calls).length).toBe(before + 1), SLOW);
    unmount();

    const empty = await renderApp('/returns', {
      signedIn: true,
      handlers: { ...handlers, 'returns.list': (): ReturnList => ({ results: [], total: 0, limit: 25, offset: 0 }) },
    });
    expect(await screen.findByText(/No returns yet/, {}, SLOW)).toBeInTheDocument();
    empty.unmount();

    // Three retries, 1 s doubling (SPEC §9), before the failure shows: on a fake clock, which findBy moves on.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await renderApp('/returns', {
      signedIn: true,
      handlers: {
        ...handlers,
        'returns.list': () => {
          throw new ProcedureError('BAD_REQUEST', 'The database is resting');
        },
      },
    });
    expect(await screen.findByText('Could not load the returns', {}, { timeout: 15_000 })).toBeInTheDocument();
  });
});
