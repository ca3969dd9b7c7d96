import type { SyncDetail, SyncList, SyncRun, SyncTypesOutput } from '@switchyard/contracts';
import { MESSAGES } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError } from '../../../test/trpc-stub.ts';

const T0 = new Date('2026-11-20T10:00:00.000Z');

function runOf(id: number, overrides: Partial<SyncRun> = {}): SyncRun {
  return {
    id,
    type: 'inventory_push',
    typeLabel: 'Stock push',
    channel: { id: 'chn_1', name: 'Main Shopify', type: 'shopify' },
    status: 'succeeded',
    trigger: 'change',
    total: 10,
    processed: 10,
    succeeded: 10,
    failed: 0,
    message: null,
    retryOf: null,
    createdAt: T0,
    startedAt: T0,
    finishedAt: new Date(T0.getTime() + 1500),
    durationMs: 1500,
    ...overrides,
  };
}

/** 60 runs, newest (highest id) first; #60 failed, #59 running, every 5th partly failed. */
const RUNS: SyncRun[] = Array.from({ length: 60 }, (_, i) => {
  const id = 60 - i;
  if (id === 60)
    return runOf(id, {
      type: 'catalog_import',
      typeLabel: 'Catalog import',
      status: 'failed',
      failed: 0,
      message: 'Shopify refused our access',
    });
  if (id === 59) return runOf(id, { status: 'running', processed: 4, finishedAt: null, durationMs: 4000 });
  if (id % 5 === 0) return runOf(id, { status: 'partial', failed: 2, succeeded: 8 });
  return runOf(id);
});

const TYPES: SyncTypesOutput = {
  types: [
    { type: 'inventory_push', label: 'Stock push', count: 59 },
    { type: 'catalog_import', label: 'Catalog import', count: 1 },
    { type: 'catalog_publish', label: 'Catalog publish', count: 0 },
    { type: 'reconcile', label: 'Reconciliation', count: 0 },
  ],
  total: 60,
};

type ListInput = { type?: string; has_errors?: boolean; limit?: number; offset?: number; sort?: 'asc' | 'desc' };

function matching(input: ListInput) {
  let rows = RUNS.filter((r) => !input.type || r.type === input.type);
  if (input.has_errors) rows = rows.filter((r) => r.failed > 0 || r.status === 'failed');
  return input.sort === 'asc' ? [...rows].reverse() : rows;
}

const handlers = {
  'syncs.list': (input: unknown): SyncList => {
    const i = (input ?? {}) as ListInput;
    const rows = matching(i);
    const offset = i.offset ?? 0;
    return { results: rows.slice(offset, offset + (i.limit ?? 25)), total: rows.length };
  },
  'syncs.count': (input: unknown) => ({ total: matching((input ?? {}) as ListInput).length }),
  'syncs.types': () => TYPES,
  'syncs.deadLetters': () => ({ results: [], total: 0 }),
};

type Fetch = Awaited<ReturnType<typeof renderApp>>['fetch'];
const callsTo = (fetch: Fetch, path: string) => fetch.calls.filter((call) => call.paths.includes(path));

describe('syncs list', { timeout: 30_000 }, () => {
  it('lists runs with type, channel, status, progress, failures and duration; the list request goes unbatched', async () => {
    const { fetch } = await renderApp('/syncs', { signedIn: true, handlers });
    const table = await screen.findByRole('table', { name: 'Syncs' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(26);
    const failed = rows[1] as HTMLElement;
    expect(within(failed).getByRole('link', { name: '#60' })).toHaveAttribute('href', '/syncs/60');
    expect(within(failed).getByText('Catalog import')).toBeInTheDocument();
    expect(within(failed).getByText('Failed')).toBeInTheDocument();
    expect(within(failed).getByText('Main Shopify')).toBeInTheDocument();
    expect(within(failed).getByText('2 s')).toBeInTheDocument();
    const running = rows[2] as HTMLElement;
    expect(within(running).getByText('Running')).toBeInTheDocument();
    expect(within(running).getByRole('progressbar', { name: 'Sync 59 progress' })).toBeInTheDocument();
    expect(within(running).getByText('4 / 10')).toBeInTheDocument();
    expect(within(rows[6] as HTMLElement).getByText('Partly failed')).toBeInTheDocument();
    expect(await screen.findByText('1–25 of 60')).toBeInTheDocument();

    // SPEC §7: the sync list is sent on its own; its count and types may share a batch.
    const listCalls = callsTo(fetch, 'syncs.list');
    expect(listCalls.length).toBeGreaterThan(0);
    for (const call of listCalls) {
      expect(call.batched).toBe(false);
      expect(call.paths).toEqual(['syncs.list']);
    }
    const [countCall] = callsTo(fetch, 'syncs.count');
    expect(countCall?.inputs[countCall.paths.indexOf('syncs.count')]).toEqual({ type: undefined, has_errors: false });
  });

  it('keeps filters, sort and page in the address and asks the server for them', async () => {
    const { user, fetch, router } = await renderApp('/syncs', { signedIn: true, handlers });
    const table = await screen.findByRole('table', { name: 'Syncs' });

    await user.click(screen.getByRole('switch', { name: 'Only with errors' }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(13));
    expect(router.state.location.search).toMatchObject({ has_errors: true });
    // One page: no pager.
    expect(screen.queryByRole('navigation', { name: 'Syncs pages' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Sort oldest first' }));
    await waitFor(() => expect(within(table).getAllByRole('link')[0]).toHaveTextContent('#5'));
    expect(router.state.location.search).toMatchObject({ has_errors: true, sort: 'asc' });

    await user.click(screen.getByRole('switch', { name: 'Only with errors' }));
    await waitFor(() => expect(screen.getByText('1–25 of 60')).toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByText('26–50 of 60')).toBeInTheDocument());
    expect(within(table).getAllByRole('link')[0]).toHaveTextContent('#26');

    const lastList = callsTo(fetch, 'syncs.list').at(-1);
    expect(lastList?.inputs[0]).toMatchObject({ has_errors: false, sort: 'asc', offset: 25, limit: 25 });
  });

  it('filters by type with counts from syncs.types, and changes the page size', async () => {
    const { user, router } = await renderApp('/syncs', { signedIn: true, handlers });
    await screen.findByRole('table', { name: 'Syncs' });
    await user.click(screen.getByLabelText('Type', { selector: 'input' }));
    await user.click(await screen.findByRole('option', { name: 'Catalog import (1)' }));
    await waitFor(() => expect(router.state.location.search).toMatchObject({ type: 'catalog_import' }));
    const table = screen.getByRole('table', { name: 'Syncs' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2));

    await renderAgainWithPageSize(user);
    expect(router.state.location.search).toMatchObject({ type: 'catalog_import', limit: 50 });
  });

  it('says so when nothing matches', async () => {
    await renderApp('/syncs?type=reconcile', { signedIn: true, handlers });
    expect(await screen.findByText('No syncs match')).toBeInTheDocument();
  });

  it('shows the load error', async () => {
    // Three retries, 1 s doubling (SPEC §9), before the failure shows: on a fake clock, which findBy moves on.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await renderApp('/syncs', {
      signedIn: true,
      handlers: {
        ...handlers,
        'syncs.list': () => {
          throw new ProcedureError('BAD_REQUEST', 'The database is resting');
        },
      },
    });
    expect(await screen.findByText('Could not load the syncs', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.getByText('The database is resting')).toBeInTheDocument();
  });
});

async function renderAgainWithPageSize(user: Awaited<ReturnType<typeof renderApp>>['user']) {
  await user.click(screen.getByLabelText('Per page', { selector: 'input' }));
  await user.click(await screen.findByRole('option', { name: '50' }));
}

function detailOf(run: SyncRun, overrides: Partial<SyncDetail> = {}): SyncDetail {
  const items = Array.from({ length: run.failed }, (_, i) => ({
    id: i + 1,
    label: `SKU-${i + 1} @ north`,
    variantId: `var_${i + 1}`,
    status: 'failed' as const,
    error: `Shopify said no to SKU-${i + 1}`,
    createdAt: T0,
  }));
  return {
    sync: run,
    items: { results: items.slice(0, 25), total: items.length, limit: 25, offset: 0 },
    retryable: items.length,
    retries: [],
    ...overrides,
  };
}

describe('sync detail', { timeout: 30_000 }, () => {
  it('shows counts, message and failed items, and retries them into a new run', async () => {
    const run = runOf(40, {
      status: 'partial',
      total: 30,
      processed: 30,
      succeeded: 27,
      failed: 3,
      message: 'Some items failed',
    });
    const retried = runOf(61, { trigger: 'retry', retryOf: 40 });
    const retryCalls: unknown[] = [];
    const { user, router } = await renderApp('/syncs/40', {
      signedIn: true,
      handlers: {
        ...handlers,
        'syncs.get': (input) => ((input as { id: number }).id === 61 ? detailOf(retried) : detailOf(run)),
        'syncs.retry': (input) => {
          retryCalls.push(input);
          return { id: 61 };
        },
      },
    });
    expect(await screen.findByRole('heading', { name: 'Stock push #40' })).toBeInTheDocument();
    expect(screen.getByText('Partly failed')).toBeInTheDocument();
    expect(screen.getByText('Some items failed')).toBeInTheDocument();
    const items = screen.getByRole('table', { name: 'Failed items' });
    expect(within(items).getAllByRole('row')).toHaveLength(4);
    expect(within(items).getByText('Shopify said no to SKU-2')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Retry failed items (3)' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/syncs/61'));
    expect(retryCalls).toEqual([{ id: 40 }]);
    expect(await screen.findByRole('heading', { name: 'Stock push #61' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '#40' })).toHaveAttribute('href', '/syncs/40');
    expect(screen.queryByRole('button', { name: /Retry failed items/ })).not.toBeInTheDocument();
  });

  it('polls a running run every second until it finishes', async () => {
    // Seconds on a fake clock: waitFor moves it on; the quiet spell at the end is moved on by hand.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let reads = 0;
    await renderApp('/syncs/59', {
      signedIn: true,
      handlers: {
        ...handlers,
        'syncs.get': () => {
          reads += 1;
          const done = reads >= 3;
          return detailOf(
            runOf(59, {
              status: done ? 'succeeded' : 'running',
              processed: done ? 10 : reads * 3,
              finishedAt: done ? new Date(T0.getTime() + 5000) : null,
            }),
          );
        },
      },
    });
    expect(await screen.findByRole('progressbar', { name: 'Sync 59 progress' })).toBeInTheDocument();
    expect(screen.getByText('3 / 10')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('6 / 10')).toBeInTheDocument(), { timeout: 2500 });
    await waitFor(() => expect(screen.getByText('Took')).toBeInTheDocument(), { timeout: 2500 });
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    const settled = reads;
    await vi.advanceTimersByTimeAsync(1300);
    expect(reads).toBe(settled);
  });

  it('answers an address that is not a run number with the not-found page', async () => {
    await renderApp('/syncs/abc', { signedIn: true, handlers });
    expect(await screen.findByText(MESSAGES.notFound)).toBeInTheDocument();
  });

  it('shows a refused retry', async () => {
    const run = runOf(41, { status: 'partial', failed: 1 });
    const { user } = await renderApp('/syncs/41', {
      signedIn: true,
      handlers: {
        ...handlers,
        'syncs.get': () => detailOf(run),
        'syncs.retry': () => {
          throw new ProcedureError('BAD_REQUEST', 'This sync has no failed items left to retry.');
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Retry failed items (1)' }));
    expect(await screen.findByText('This sync has no failed items left to retry.')).toBeInTheDocument();
  });
});
