// Issue 16's journey: a merchant with the three sandbox shops connected ships a Shopify web order (a label bought
// through the v2 API), then refunds and restocks a unit of it from the order's page; the return shows on
// /returns/ with its store and items, and the unit is back on BigCommerce and Square within seconds. A return made
// at the Square register in the simulator shows the same way, and its unit is back on Shopify and BigCommerce.
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { openLink, problemsOf, tableLayoutProblems, useBrowser } from './browser.ts';
import { merchantWithThreeShops, type ShopSnapshot, sandboxControl, stockTotals } from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');
const control = sandboxControl(sandboxUrl);

/** Waits are polls with a ceiling, never fixed sleeps; the ceilings leave room for a loaded two-core machine. */
const SOON = { timeout: 30_000, interval: 250 };

/** The signed-in merchant's own API (the token the web app keeps), for what the journey does not click through. */
async function api<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

describe('returns in Chromium', () => {
  const newPage = useBrowser();

  it('refunds and restocks a shipped Shopify line from its order, and takes in a Square register return', {
    timeout: 480_000,
  }, async () => {
    const started = performance.now();
    const page = await newPage();
    const { shops, tag } = await merchantWithThreeShops(page, {
      baseUrl,
      sandboxUrl,
      name: 'returns',
      business: 'Harbor Returns',
      products: 6,
    });
    const totals = (sku: string) => stockTotals(sandboxUrl, shops, sku);
    console.log(`[returns] three shops connected and imported after ${Math.round(performance.now() - started)} ms`);

    const snaps = {
      square: await control<ShopSnapshot>(`square/${shops.square}`),
      shopify: await control<ShopSnapshot>(`shopify/${shops.shopify}`),
      bigcommerce: await control<ShopSnapshot>(`bigcommerce/${shops.bigcommerce}`),
    };
    const store = snaps.square.locations[0] as { id: string; name: string };
    const shopifyStore = snaps.shopify.locations.find((l) => l.name === store.name)?.id as string;
    const [webSku, posSku] = Object.keys(snaps.shopify.stock).filter(
      (sku) =>
        snaps.bigcommerce.stock[sku] &&
        (snaps.square.stock[sku]?.[store.id] ?? 0) >= 3 &&
        (snaps.shopify.stock[sku]?.[shopifyStore] ?? 0) >= 3,
    ) as [string, string];
    expect(posSku, 'two SKUs sold everywhere with stock at the first Square store').toBeTruthy();
    const settled = async () => {
      const now = await totals(webSku);
      return now.shopify === now.square && now.bigcommerce === now.square;
    };
    await expect.poll(settled, SOON).toBe(true);
    const before = await totals(webSku);

    // A Shopify web order of 2, shipped: a label bought through the API moves the units out of the store.
    await control(`shopify/${shops.shopify}/orders`, {
      lines: [{ sku: webSku, quantity: 2 }],
      location: shopifyStore,
      customer: { name: 'Grace Hopper', email: `grace-${tag}@harbor.test` },
    });
    await page.goto(`${baseUrl}/orders`);
    const webRow = page
      .getByRole('table', { name: 'Orders' })
      .getByRole('row')
      .filter({ hasText: `grace-${tag}` });
    await webRow.waitFor({ timeout: 30_000 });
    await openLink(page, webRow.getByRole('link').first());
    await page.waitForURL(/\/orders\/[^/?]+/);
    const orderId = new URL(page.url()).pathname.split('/').filter(Boolean).at(-1) as string;
    const shipment = await api<{ id: string; rates: { key: string; cheapest: boolean }[] }>(
      page,
      'POST',
      `/api/v2/orders/${orderId}/shipments`,
      { packages: [{ weight: 12 }] },
    );
    await api(page, 'POST', `/api/v2/orders/${orderId}/shipments/buy`, {
      shipment_id: shipment.id,
      rate: shipment.rates.find((r) => r.cheapest)?.key,
    });
    await expect
      .poll(() => totals(webSku), SOON)
      .toEqual({
        shopify: before.shopify - 2,
        bigcommerce: before.bigcommerce - 2,
        square: before.square - 2,
      });

    // From the order's page: return one unit to the first store, restocked, refunded at Shopify.
    await page.reload();
    await page.getByRole('heading', { name: /^Order / }).waitFor();
    await page.getByRole('button', { name: 'Create return' }).click();
    const dialog = page.getByRole('dialog', { name: /^Return from order / });
    await dialog.getByRole('textbox', { name: `Units of ${webSku} returned` }).fill('1');
    await dialog.getByRole('combobox', { name: /^Return store/ }).click();
    await page.getByRole('option', { name: new RegExp(`^${store.name} \\(`) }).click();
    const returnedAt = performance.now();
    await dialog.getByRole('button', { name: 'Create return' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect
      .poll(() => totals(webSku), SOON)
      .toEqual({
        shopify: before.shopify - 1,
        bigcommerce: before.bigcommerce - 1,
        square: before.square - 1,
      });
    console.log(`[returns] the unit was back on every shop ${Math.round(performance.now() - returnedAt)} ms after`);
    // The refund went to Shopify: its write-back ends Done on the timeline.
    await page
      .locator('.mantine-Timeline-item', { hasText: 'Sent to the channel' })
      .getByText('Done')
      .first()
      .waitFor({ timeout: 30_000 });

    // /returns/: the return with its order, status, store and items.
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Returns' })
      .waitFor({ state: 'attached' });
    await page.goto(`${baseUrl}/returns`);
    const returns = page.getByRole('table', { name: 'Returns' });
    const ours = returns.getByRole('row').filter({ hasText: 'Finished' }).filter({ hasText: store.name }).first();
    await ours.waitFor({ timeout: 20_000 });
    await ours.getByRole('button', { name: /^Show return / }).click();
    const items = page.getByRole('table', { name: /^Items of return / });
    await expect.poll(() => items.innerText()).toMatch(new RegExp(`${webSku}\\s+1\\s+${store.name}`));

    // A return at the Square register: sold, then brought back to the same store.
    const posBefore = await totals(posSku);
    const sale = await control<{ orderId: string }>(`square/${shops.square}/orders`, {
      lines: [{ sku: posSku, quantity: 1 }],
      location: store.id,
    });
    await expect
      .poll(() => totals(posSku), SOON)
      .toEqual({
        shopify: posBefore.shopify - 1,
        bigcommerce: posBefore.bigcommerce - 1,
        square: posBefore.square - 1,
      });
    await control(`square/${shops.square}/orders/${sale.orderId}/return`, {
      lines: [{ sku: posSku, quantity: 1 }],
      location: store.id,
    });
    await expect.poll(() => totals(posSku), SOON).toEqual(posBefore);
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Reload' }).click();
        // A return's own row (the one with its expander), not an expanded row's item table.
        return returns
          .getByRole('row')
          .filter({ has: page.getByRole('button', { name: /^(Show|Hide) return / }) })
          .filter({ hasText: store.name })
          .count();
      }, SOON)
      .toBe(2);
    // Both returns' columns read at this width: the status badges beside a Shopify refund's long id read "FINISH…".
    expect(await tableLayoutProblems(returns)).toEqual([]);
    console.log(`[returns] journey took ${Math.round(performance.now() - started)} ms`);
    expect(problemsOf(page)).toEqual([]);
  });
});
