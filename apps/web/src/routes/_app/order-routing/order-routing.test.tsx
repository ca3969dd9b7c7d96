import {
  DEFAULT_ROUTING_RULE,
  type DryRunInput,
  type DryRunResult,
  type ReplaySummary,
  ROUTING_MESSAGES,
  type RoutingRule,
  type RoutingVersionList,
  type SaveRoutingRulesInput,
} from '@switchyard/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { LIVE, LOCATIONS, NEAREST, ruleSet, T0, TRACE } from '../../../test/routing-fixtures.ts';
import { ProcedureError } from '../../../test/trpc-stub.ts';
import { SHOP } from '../products/-components/test-fixtures.ts';

/** The first screen of a test waits longer: CI shares two cores. */
const SLOW = { timeout: 5000 };

const VERSIONS: RoutingVersionList = {
  results: [
    { version: 2, ruleCount: 4, note: 'Seattle first', createdBy: 'Ada Lovelace', createdAt: T0, live: true },
    { version: 1, ruleCount: 2, note: null, createdBy: 'Charles Babbage', createdAt: T0, live: false },
  ],
  total: 2,
};

function handlers(overrides: Record<string, (input: unknown) => unknown> = {}) {
  return {
    'routing.rules': () => LIVE,
    'routing.locations': () => LOCATIONS,
    'routing.versions': () => VERSIONS,
    'routing.version': () => ruleSet(1, [NEAREST, DEFAULT_ROUTING_RULE]),
    'channels.list': () => [SHOP],
    'orders.list': () => ({ results: [], total: 0, totalCapped: false, limit: 10, offset: 0 }),
    ...overrides,
  };
}

const ruleNames = () =>
  within(screen.getByRole('list', { name: 'Routing rules' }))
    .getAllByRole('listitem')
    .map((item) => item.getAttribute('aria-label'));

/**
 * jsdom lays nothing out: each rule row gets the box it would have in a column (80 px apart), so the keyboard
 * drag can find the row above or below.
 */
function layOutRuleRows() {
  const original = Element.prototype.getBoundingClientRect;
  Element.prototype.getBoundingClientRect = function (this: Element) {
    const list = this.closest('ol[aria-label="Routing rules"]');
    const row = this.closest('ol[aria-label="Routing rules"] > li');
    if (!list || !row) return original.call(this);
    const index = [...list.children].indexOf(row);
    return DOMRect.fromRect({ x: 0, y: index * 80, width: 600, height: 72 });
  };
  return () => {
    Element.prototype.getBoundingClientRect = original;
  };
}

describe('order routing rules', { timeout: 60_000 }, () => {
  it('lists the rules in the order they are tried, in plain words, with the default last and fixed', async () => {
    await renderApp('/order-routing', { signedIn: true, handlers: handlers() });
    await screen.findByRole('list', { name: 'Routing rules' }, SLOW);
    expect(ruleNames()).toEqual([
      '1. Seattle only',
      '2. Nearest, never split',
      '3. Big orders from the warehouse',
      '4. Default',
    ]);
    expect(screen.getByText('Live: version 2, saved by Ada Lovelace', { exact: false })).toBeInTheDocument();
    const seattle = screen.getByRole('listitem', { name: '1. Seattle only' });
    expect(within(seattle).getByText('Orders in region WA')).toBeInTheDocument();
    expect(within(seattle).getByText('Ship from Seattle Store, never split.')).toBeInTheDocument();
    const big = screen.getByRole('listitem', { name: '3. Big orders from the warehouse' });
    expect(
      within(big).getByText(
        'Ship from Warehouse, then Downtown Store, in at most 2 shipments, keeping the order whole where one location can, never from Eastside Store.',
      ),
    ).toBeInTheDocument();

    const fixed = screen.getByRole('listitem', { name: '4. Default' });
    expect(within(fixed).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
    expect(within(fixed).queryByRole('button', { name: /Move|Drag/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Move Seattle only up' })).toBeDisabled();
    // Nothing moves below the default rule.
    expect(screen.getByRole('button', { name: 'Move Big orders from the warehouse down' })).toBeDisabled();
    expect(screen.queryByText('Unsaved changes')).not.toBeInTheDocument();
  });

  it('reorders by keyboard (move buttons and a keyboard drag) and saves the order as a new version', async () => {
    const restore = layOutRuleRows();
    try {
      const saved: SaveRoutingRulesInput[] = [];
      const { user } = await renderApp('/order-routing', {
        signedIn: true,
        handlers: handlers({
          'routing.save': (input) => {
            const body = input as SaveRoutingRulesInput;
            saved.push(body);
            return ruleSet(3, body.rules as RoutingRule[], { note: body.note ?? null });
          },
        }),
      });
      await screen.findByRole('list', { name: 'Routing rules' }, SLOW);

      // The move buttons, used from the keyboard.
      act(() => screen.getByRole('button', { name: 'Move Big orders from the warehouse up' }).focus());
      await user.keyboard('{Enter}');
      expect(ruleNames()).toEqual([
        '1. Seattle only',
        '2. Big orders from the warehouse',
        '3. Nearest, never split',
        '4. Default',
      ]);
      expect(screen.getByText('Unsaved changes')).toBeInTheDocument();
      // Up again: now first, its Move up is off, and the keyboard stays on the row (its Move down).
      await user.keyboard('{Enter}');
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Move Big orders from the warehouse down' })).toHaveFocus(),
      );
      await user.keyboard('{Enter}');
      expect(ruleNames()).toEqual([
        '1. Seattle only',
        '2. Big orders from the warehouse',
        '3. Nearest, never split',
        '4. Default',
      ]);

      // A keyboard drag: pick up Seattle only, down one row, drop.
      act(() => screen.getByRole('button', { name: 'Drag Seattle only to reorder' }).focus());
      await user.keyboard(' ');
      await user.keyboard('{ArrowDown}');
      await user.keyboard(' ');
      await waitFor(() =>
        expect(ruleNames()).toEqual([
          '1. Big orders from the warehouse',
          '2. Seattle only',
          '3. Nearest, never split',
          '4. Default',
        ]),
      );

      await user.click(screen.getByRole('button', { name: 'Save as a new version' }));
      const dialog = await screen.findByRole('dialog', { name: 'Save as a new version' });
      await user.type(within(dialog).getByRole('textbox', { name: 'What changed (optional)' }), 'Big orders first');
      await user.click(within(dialog).getByRole('button', { name: 'Save version' }));
      await waitFor(() => expect(screen.queryByText('Unsaved changes')).not.toBeInTheDocument(), SLOW);
      expect(saved).toHaveLength(1);
      expect(saved[0]).toMatchObject({ baseVersion: 2, note: 'Big orders first' });
      expect(saved[0]?.rules.map((r) => r.id)).toEqual(['rule_big', 'rule_seattle', 'rule_nearest', 'default']);
      expect(await screen.findByText('Version 3 saved: new orders are routed by it')).toBeInTheDocument();
    } finally {
      restore();
    }
  });

  it('refuses to save over a version saved meanwhile, and offers to start again from it', async () => {
    let live = LIVE;
    const { user } = await renderApp('/order-routing', {
      signedIn: true,
      handlers: handlers({
        'routing.rules': () => live,
        'routing.save': () => {
          live = ruleSet(3, [NEAREST, DEFAULT_ROUTING_RULE]);
          throw new ProcedureError('CONFLICT', ROUTING_MESSAGES.staleVersion(3));
        },
      }),
    });
    await screen.findByRole('list', { name: 'Routing rules' }, SLOW);
    await user.click(screen.getByRole('button', { name: 'Delete Seattle only' }));
    expect(ruleNames()).toHaveLength(3);
    await user.click(screen.getByRole('button', { name: 'Save as a new version' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save as a new version' });
    await user.click(within(dialog).getByRole('button', { name: 'Save version' }));
    expect(await within(dialog).findByText(ROUTING_MESSAGES.staleVersion(3))).toBeInTheDocument();
    await user.click(
      within(dialog).getByRole('button', { name: 'Discard this draft and start from the latest rules' }),
    );
    await waitFor(() => expect(ruleNames()).toEqual(['1. Nearest, never split', '2. Default']), SLOW);
    expect(screen.queryByText('Unsaved changes')).not.toBeInTheDocument();
  });

  it('checks a new rule with clear messages and adds it just above the default rule', async () => {
    const { user } = await renderApp('/order-routing', { signedIn: true, handlers: handlers() });
    await screen.findByRole('list', { name: 'Routing rules' }, SLOW);
    await user.click(screen.getByRole('button', { name: 'Add rule' }));
    const form = await screen.findByRole('form', { name: 'New rule' });
    const submit = within(form).getByRole('button', { name: 'Add rule' });
    // Pasting is one change per field: it keeps this long form quick.
    const fill = async (label: RegExp, text: string) => {
      const input = within(form).getByLabelText(label, { selector: 'input' });
      await user.clear(input);
      if (text) {
        await user.click(input);
        await user.paste(text);
      }
    };

    await user.click(submit);
    expect(within(form).getByText('* Required')).toBeInTheDocument();
    expect(within(form).getByText('One field needs a change before the rule can be kept.')).toBeInTheDocument();

    await fill(/Rule name/, 'seattle ONLY');
    expect(within(form).getByText('Another rule is already called seattle ONLY')).toBeInTheDocument();
    await fill(/Rule name/, 'Oregon from the nearest store');

    await fill(/Order value at least/, '100');
    await fill(/Order value at most/, '50');
    expect(within(form).getByText('The minimum order value cannot be above the maximum')).toBeInTheDocument();
    await fill(/Order value at most/, '');

    // Warehouse both preferred and excluded.
    await user.click(within(form).getByLabelText(/Location group, in order of preference/, { selector: 'input' }));
    await user.click(await screen.findByRole('option', { name: /^Warehouse/ }));
    await user.click(within(form).getByLabelText(/Never ship from/, { selector: 'input' }));
    await user.click(await screen.findByRole('option', { name: /^Warehouse/ }));
    expect(within(form).getByText('Warehouse is both preferred and excluded')).toBeInTheDocument();
    await user.click(within(form).getByRole('button', { name: 'Remove Warehouse' }));

    await user.click(submit);
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New rule' })).not.toBeInTheDocument(), SLOW);
    expect(ruleNames()).toEqual([
      '1. Seattle only',
      '2. Nearest, never split',
      '3. Big orders from the warehouse',
      '4. Oregon from the nearest store',
      '5. Default',
    ]);
    const added = screen.getByRole('listitem', { name: '4. Oregon from the nearest store' });
    expect(within(added).getByText('Orders worth at least $100.00')).toBeInTheDocument();
    expect(
      within(added).getByText('Ship from the nearest location, never split, never from Warehouse.'),
    ).toBeInTheDocument();
    expect(screen.getByText('Unsaved changes')).toBeInTheDocument();
  });

  it('shows an error with a retry when the rules cannot be read', async () => {
    let fail = true;
    const { user } = await renderApp('/order-routing', {
      signedIn: true,
      handlers: handlers({
        'routing.rules': () => {
          if (fail) throw new ProcedureError('BAD_REQUEST', 'The routing rules are unavailable');
          return LIVE;
        },
      }),
    });
    expect(await screen.findByText('Could not load the routing rules', {}, SLOW)).toBeInTheDocument();
    expect(screen.getByText('The routing rules are unavailable')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('list', { name: 'Routing rules' }, SLOW)).toBeInTheDocument();
  });
});

describe('dry run, replay and history', { timeout: 60_000 }, () => {
  it('checks a typed-in order, runs it by the draft or the live rules, and explains the decision', async () => {
    const runs: DryRunInput[] = [];
    const { user } = await renderApp('/order-routing?tab=dry-run', {
      signedIn: true,
      handlers: handlers({
        'routing.dryRun': (input): DryRunResult => {
          runs.push(input as DryRunInput);
          return { trace: TRACE, current: null };
        },
      }),
    });
    const form = await screen.findByRole('form', { name: 'Dry run' }, SLOW);
    await user.click(within(form).getByRole('button', { name: 'Run dry run' }));
    expect(within(form).getByText('* Required')).toBeInTheDocument();
    expect(runs).toEqual([]);

    await user.type(within(form).getByRole('textbox', { name: 'SKU of line 1' }), 'MUG-1');
    await user.clear(within(form).getByRole('textbox', { name: 'Quantity of line 1' }));
    await user.type(within(form).getByRole('textbox', { name: 'Quantity of line 1' }), '2');
    await user.type(within(form).getByRole('textbox', { name: /Region/ }), 'OR');
    await user.type(within(form).getByRole('textbox', { name: /Postal code/ }), '97205');
    await user.click(within(form).getByRole('button', { name: 'Run dry run' }));

    expect(
      await screen.findByText('One shipment from Downtown Store by rule Nearest, never split.', {}, SLOW),
    ).toBeInTheDocument();
    expect(screen.getByText('Seattle only did not apply: The destination region is OR, not WA.')).toBeInTheDocument();
    expect(
      within(screen.getByRole('table', { name: 'Locations for MUG-1 × 2' })).getByText('No stock'),
    ).toBeInTheDocument();
    expect(runs[0]).toEqual({
      ruleSet: { source: 'draft', rules: LIVE.rules },
      order: {
        hypothetical: {
          channelId: null,
          fulfillmentType: 'ship',
          pickupLocationId: null,
          country: 'US',
          region: 'OR',
          postalCode: '97205',
          total: null,
          lines: [{ sku: 'MUG-1', quantity: 2 }],
        },
      },
    });

    await user.click(within(form).getByRole('radio', { name: 'Live (version 2)' }));
    await user.click(within(form).getByRole('button', { name: 'Run dry run' }));
    await waitFor(() => expect(runs).toHaveLength(2));
    expect(runs[1]?.ruleSet).toEqual({ source: 'live' });
  });

  it('replays the rules over the last orders with progress, and compares with what happened', async () => {
    let finish: (summary: ReplaySummary) => void = () => {};
    const asked: unknown[] = [];
    const { user } = await renderApp('/order-routing?tab=replay', {
      signedIn: true,
      handlers: handlers({
        'routing.replay': (input) => {
          asked.push(input);
          return new Promise<ReplaySummary>((resolve) => {
            finish = resolve;
          });
        },
      }),
    });
    const form = await screen.findByRole('form', { name: 'Replay' }, SLOW);
    const limit = within(form).getByRole('textbox', { name: 'Last orders' });
    await user.clear(limit);
    await user.click(within(form).getByRole('button', { name: 'Run replay' }));
    expect(within(form).getByText('Enter a whole number from 1 to 10,000')).toBeInTheDocument();
    await user.type(limit, '2000');
    await user.click(within(form).getByRole('button', { name: 'Run replay' }));

    expect(await screen.findByRole('progressbar', { name: 'Replay running' }, SLOW)).toBeInTheDocument();
    expect(screen.getByText(/Replaying the last 2,000 orders… \d+ s/)).toBeInTheDocument();
    expect(asked).toEqual([{ ruleSet: { source: 'draft', rules: LIVE.rules }, limit: 2000 }]);

    act(() =>
      finish({
        ruleSetVersion: null,
        orders: 2000,
        actual: {
          orders: 2000,
          shipments: 2600,
          shipmentsPerOrder: 1.3,
          splitRate: 0.25,
          avgDistanceKm: 120,
          unplacedLines: 14,
        },
        draft: {
          orders: 2000,
          shipments: 2000,
          shipmentsPerOrder: 1,
          splitRate: 0,
          avgDistanceKm: 40.5,
          unplacedLines: 20,
        },
        changedOrders: 612,
        examples: [
          { orderId: 'ord_7', number: '#1007', actual: ['Warehouse', 'Eastside Store'], draft: ['Downtown Store'] },
        ],
        tookMs: 3400,
      }),
    );
    const table = await screen.findByRole('table', { name: 'Replay comparison' }, SLOW);
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['Shipments per order', '1.30', '1.00', '−0.30'],
      ['Split rate', '25%', '0%', '−25.0 points'],
      ['Average distance', '120 km', '41 km', '−80 km'],
      ['Lines that could not be placed', '14', '20', '+6'],
    ]);
    expect(screen.queryByRole('progressbar', { name: 'Replay running' })).not.toBeInTheDocument();
    expect(
      screen.getByText(/2,000 orders replayed in 3.4 s\. 612 would ship from different locations\./),
    ).toBeInTheDocument();
    expect(screen.getByText('Warehouse, Eastside Store → Downtown Store')).toBeInTheDocument();
  });

  it('lists the versions with who and when, and loads one into the draft', async () => {
    const { user } = await renderApp('/order-routing?tab=history', { signedIn: true, handlers: handlers() });
    const versions = await screen.findByRole('list', { name: 'Versions' }, SLOW);
    const [v2, v1] = within(versions).getAllByRole('listitem') as HTMLElement[];
    expect(within(v2 as HTMLElement).getByText('Live')).toBeInTheDocument();
    expect(within(v2 as HTMLElement).getByText(/4 rules · by Ada Lovelace ·/)).toBeInTheDocument();
    expect(within(v2 as HTMLElement).getByText('Seattle first')).toBeInTheDocument();
    expect(within(v1 as HTMLElement).getByText(/2 rules · by Charles Babbage ·/)).toBeInTheDocument();

    await user.click(within(v1 as HTMLElement).getByRole('button', { name: 'Show version 1' }));
    expect(
      await within(v1 as HTMLElement).findByText(/Every order\. Ship from any location/, {}, SLOW),
    ).toBeInTheDocument();
    await user.click(within(v1 as HTMLElement).getByRole('button', { name: 'Load version 1 into the draft' }));
    await waitFor(() => expect(ruleNames()).toEqual(['1. Nearest, never split', '2. Default']), SLOW);
    expect(screen.getByText('Unsaved changes')).toBeInTheDocument();
  });

  it('lists the lines waiting for a store by status, each linked to its order (SPEC §7 listOrderItemAllocations)', async () => {
    const asked: unknown[] = [];
    const row = (status: number, reason: string) => ({
      id: `alloc_${status}`,
      orderId: 'ord_7',
      orderNumber: '#1007',
      lineId: 'line_1',
      sku: 'MUG-1',
      title: 'Summit Mug',
      locationId: 'loc_downtown',
      locationName: 'Downtown Store',
      storeId: 'LOC_DOWNTOWN',
      quantity: 2,
      status,
      reason,
      createdAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
    });
    const { user } = await renderApp('/order-routing?tab=waiting', {
      signedIn: true,
      handlers: handlers(),
      rest: {
        'POST /api/frontend/shipping/listOrderItemAllocations': (input) => {
          asked.push(input);
          const { status } = input as { status: number };
          const results = status === 5 ? [row(5, 'Downtown Store rejected it: Shelf is empty')] : [];
          return { body: { results, total: results.length, limit: 25, offset: 0 } };
        },
      },
    });
    const table = await screen.findByRole('table', { name: 'Waiting lines' }, SLOW);
    expect(within(table).getByRole('link', { name: '#1007' })).toHaveAttribute('href', '/orders/ord_7');
    expect(within(table).getByText('Downtown Store rejected it: Shelf is empty')).toBeInTheDocument();
    expect(asked[0]).toEqual({ status: 5, limit: 25, offset: 0 });

    await user.click(screen.getByRole('radio', { name: 'Insufficient stock' }));
    expect(await screen.findByText('No line with status Insufficient stock right now.', {}, SLOW)).toBeInTheDocument();
    expect(asked.at(-1)).toEqual({ status: 4, limit: 25, offset: 0 });
  });
});
