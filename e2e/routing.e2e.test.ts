// Issue 14's journey: a merchant builds the rule "ship from the nearest store, never split", dry-runs it on an
// order and reads why each store was or was not chosen, saves it, places a shipped order in the Square simulator
// and sees it routed by that rule; the store rejects the line and it moves to the next store, the reason on the
// order's timeline.
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { openLink, problemsOf, useBrowser } from './browser.ts';
import {
  connectSquare,
  importFromChannelPage,
  newActiveMerchant,
  type ShopSnapshot,
  sandboxControl,
} from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');
const control = sandboxControl(sandboxUrl);

/** Waits are polls with a ceiling, never fixed sleeps; the ceilings leave room for a loaded two-core machine. */
const SOON = { timeout: 60_000, interval: 1000 };
const RULE = 'Nearest store, never split';
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The Square catalog import ends on the syncs screen. */
async function waitForImport(page: Page) {
  await page.goto(`${baseUrl}/syncs?type=catalog_import`);
  const syncs = page.getByRole('table', { name: 'Syncs' });
  await expect
    .poll(async () => {
      await page.reload();
      await syncs.waitFor();
      return syncs
        .getByRole('row')
        .filter({ hasText: /Succeeded|Partly failed/ })
        .count();
    }, SOON)
    .toBe(1);
}

describe('order routing in Chromium', () => {
  const newPage = useBrowser();

  it('builds a nearest-store rule, dry-runs it, saves it, and sees an order routed by it and re-routed on a rejection', {
    timeout: 240_000,
  }, async () => {
    const started = performance.now();
    const page = await newPage();
    const tag = Date.now().toString(36);
    await newActiveMerchant(page, {
      baseUrl,
      sandboxUrl,
      plan: 'Growth',
      email: `routing-${tag}@harbor.test`,
      password: 'routing journey 2026',
      business: 'Harbor Routing',
    });
    // Square's four Oregon and Washington stores become the merchant's locations, placed by their postal codes.
    const { merchantId } = await connectSquare(page, baseUrl, sandboxUrl, `Harbor Routing ${tag}`);
    await control(`square/${merchantId}/reset`, { products: 8 });
    await importFromChannelPage(page, 'Square POS');
    await waitForImport(page);
    console.log(`[routing] Square imported after ${Math.round(performance.now() - started)} ms`);

    // A SKU Downtown Store (97204, nearest to Square Online's 97205 ship-to) and another Portland store both hold.
    const shop = await control<ShopSnapshot>(`square/${merchantId}`);
    const downtown = shop.locations.find((l) => l.name === 'Downtown Store') as { id: string; name: string };
    const portland = shop.locations.filter((l) => l.name !== 'Seattle Store' && l.id !== downtown.id);
    const sku = Object.keys(shop.stock).find(
      (s) => (shop.stock[s]?.[downtown.id] ?? 0) >= 2 && portland.some((l) => (shop.stock[s]?.[l.id] ?? 0) >= 2),
    ) as string;
    expect(sku, 'a SKU with stock at Downtown Store and another Portland store').toBeTruthy();

    // The rule: no condition but shipped orders; the nearest store, one shipment.
    await page.goto(`${baseUrl}/order-routing`);
    await page.getByRole('list', { name: 'Routing rules' }).waitFor();
    await page.getByRole('button', { name: 'Add rule' }).click();
    const editor = page.getByRole('form', { name: 'New rule' });
    await editor.getByRole('textbox', { name: /Rule name/ }).fill(RULE);
    await editor.getByRole('checkbox', { name: 'Ship' }).check();
    await expect.poll(() => editor.getByRole('switch', { name: /Nearest location first/ }).isChecked()).toBe(true);
    await editor.getByRole('textbox', { name: /At most this many shipments/ }).fill('1');
    await editor.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.getByRole('listitem', { name: `1. ${RULE}` });
    await rule.getByText('Orders to ship').waitFor();
    await rule.getByText('Ship from the nearest location, never split.').waitFor();
    await page.getByRole('listitem', { name: '2. Default' }).waitFor();

    // Dry run of the draft on a typed-in order to Portland: why each store was or was not chosen.
    await page.getByRole('tab', { name: 'Dry run' }).click();
    const dryRun = page.getByRole('form', { name: 'Dry run' });
    await dryRun.getByRole('textbox', { name: 'SKU of line 1' }).fill(sku);
    await dryRun.getByRole('textbox', { name: 'Region' }).fill('OR');
    await dryRun.getByRole('textbox', { name: 'Postal code' }).fill('97205');
    await dryRun.getByRole('button', { name: 'Run dry run' }).click();
    const stores = page.getByRole('table', { name: `Locations for ${sku} × 1` });
    await stores.waitFor();
    await page.getByText(`${RULE} applied.`).waitFor();
    const rows = stores.getByRole('row').filter({ has: page.getByRole('rowheader') });
    const seen = await rows.evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent?.trim() ?? '')),
    );
    // Every store is listed with its stock, its distance and what became of it, and why.
    expect(seen.map((r) => r[0]).sort()).toEqual(shop.locations.map((l) => l.name).sort());
    expect(seen.find((r) => r[0] === 'Downtown Store')?.[3]).toBe('Chosen: 1 unit');
    for (const row of seen) {
      expect(row[2], `${row[0]}'s distance`).toMatch(/km$/);
      expect(row[4], `why ${row[0]}`).not.toBe('');
      if (row[0] !== 'Downtown Store') expect(row[3]).not.toMatch(/^Chosen/);
    }

    // Saved as version 1.
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    const save = page.getByRole('dialog', { name: 'Save as a new version' });
    await save.getByRole('textbox', { name: 'What changed (optional)' }).fill('Nearest store first');
    await save.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('Version 1 saved: new orders are routed by it').waitFor();

    // A Square Online order shipped to Portland, placed at the Downtown store.
    await control(`square/${merchantId}/orders`, {
      lines: [{ sku, quantity: 1 }],
      location: downtown.id,
      fulfillmentType: 'ship',
      customer: { name: 'Grace Hopper', email: `grace-${tag}@harbor.test` },
    });
    await page.goto(`${baseUrl}/orders?status=-1`);
    const row = page
      .getByRole('table', { name: 'Orders' })
      .getByRole('row')
      .filter({ hasText: `grace-${tag}@harbor.test` });
    await row.waitFor({ timeout: 30_000 });
    await openLink(page, row.getByRole('link').first());
    await page.getByRole('heading', { name: /^Order / }).waitFor();

    // Routed by the rule: Downtown Store, and why.
    const lines = page.getByRole('table', { name: 'Lines' });
    const rejectDowntown = lines.getByRole('button', { name: `Reject ${sku} at Downtown Store` });
    await rejectDowntown.waitFor({ timeout: 30_000 });
    await lines.getByText('Why this store:').waitFor();
    await lines.getByText('Routed by rules version 1').waitFor();
    await lines.getByRole('button', { name: 'Every location and rule' }).click();
    await lines.getByText(`${RULE} applied.`).waitFor();

    // The store rejects the line: it moves to the next store, the reason on the timeline.
    await rejectDowntown.click();
    const reject = page.getByRole('dialog', { name: `Reject ${sku} at Downtown Store?` });
    await reject.getByRole('textbox', { name: /Reason/ }).fill('Shelf is empty');
    await reject.getByRole('button', { name: 'Reject and route again' }).click();
    await page.getByText(/^Routed again: now at /).waitFor();
    const moved = lines.getByRole('button', { name: new RegExp(`^Reject ${escapeRegExp(sku)} at (?!Downtown Store)`) });
    await moved.waitFor();
    const next = ((await moved.getAttribute('aria-label')) ?? '').replace(`Reject ${sku} at `, '');
    expect(portland.map((l) => l.name)).toContain(next);
    await lines.getByText(/^Routed again by /).waitFor();
    await page.getByText(`Downtown Store rejected 1 × ${sku}: Shelf is empty`).waitFor();
    console.log(`[routing] journey took ${Math.round(performance.now() - started)} ms; re-routed to ${next}`);
    expect(problemsOf(page)).toEqual([]);
  });
});
