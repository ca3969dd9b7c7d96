// Issue 17's journey: after an order from each of the three sandbox shops, the dashboard shows their sales by
// channel for 30 days by day and for a year by month, and its figures agree with the orders list.
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { problemsOf, useBrowser } from './browser.ts';
import { merchantWithThreeShops, type ShopSnapshot, sandboxControl } from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');
const control = sandboxControl(sandboxUrl);

/** Waits are polls with a ceiling, never fixed sleeps; the ceilings leave room for a loaded two-core machine. */
const SOON = { timeout: 30_000, interval: 500 };

/** "$1,234.50" → 123450 (the sandbox shops sell in US dollars). */
const minor = (text: string) => Number(text.replace(/[^\d]/g, ''));

/** The orders list (all statuses): each order's customer, channel name, status and total as shown. */
async function ordersListed(page: Page) {
  await page.goto(`${baseUrl}/orders?status=-1&limit=100`);
  const table = page.getByRole('table', { name: 'Orders' });
  await table.waitFor();
  const rows = table.locator('tbody tr');
  // Columns by their headers ("Channel / Fulfillment", "Status ↕"), not by place: the list's columns change.
  const headers = (await table.getByRole('columnheader').allInnerTexts()).map((h) => h.trim());
  const column = (name: string) => headers.findIndex((h) => h.startsWith(name));
  const listed: { customer: string; channel: string; status: string; total: string }[] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const cells = rows.nth(i).getByRole('cell');
    listed.push({
      channel: ((await cells.nth(column('Channel')).innerText()).split('\n')[0] ?? '').trim(),
      customer: (await cells.nth(column('Customer')).innerText()).trim(),
      status: (await cells.nth(column('Status')).innerText()).trim(),
      total: (await cells.nth(column('Total')).innerText()).trim(),
    });
  }
  return listed;
}

/** What the list adds up to: sales of the orders not cancelled, in all and per channel (minor units). */
function listSums(listed: Awaited<ReturnType<typeof ordersListed>>) {
  const byChannel: Record<string, number> = {};
  let total = 0;
  for (const o of listed) {
    if (/cancelled/i.test(o.status)) continue;
    total += minor(o.total);
    byChannel[o.channel] = (byChannel[o.channel] ?? 0) + minor(o.total);
  }
  return { total, byChannel };
}

/** The dashboard's Sales figure and its sales by channel (minor units), as shown. */
async function dashboardSales(page: Page) {
  const byChannelRegion = page.getByRole('region', { name: 'Sales by channel' });
  await byChannelRegion.waitFor({ timeout: 30_000 });
  const total = minor(await page.getByTestId('figure-sales-value').innerText());
  const lines = (await byChannelRegion.innerText()).split('\n').map((l) => l.trim());
  const byChannel: Record<string, number> = {};
  // Each bar: its channel's name, then its sales.
  for (let i = lines.indexOf('Sales') + 1; i + 1 < lines.length; i += 2) {
    byChannel[lines[i] as string] = minor(lines[i + 1] as string);
  }
  return { total, byChannel };
}

describe('dashboard in Chromium', () => {
  const newPage = useBrowser();

  it('shows the three shops’ sales by channel for 30 days by day and a year by month, as the orders list has them', {
    timeout: 360_000,
  }, async () => {
    const started = performance.now();
    const page = await newPage();
    const { shops, tag } = await merchantWithThreeShops(page, {
      baseUrl,
      sandboxUrl,
      name: 'dash',
      business: 'Harbor Figures',
      products: 4,
    });
    console.log(`[dashboard] three shops connected after ${Math.round(performance.now() - started)} ms`);

    // An order from each shop (the shops' own recent orders came in at connect): a web order on Shopify and
    // BigCommerce, a pickup order at a Square store.
    const snap = await control<ShopSnapshot>(`shopify/${shops.shopify}`);
    const sku = Object.keys(snap.stock)[0] as string;
    const squareSnap = await control<ShopSnapshot>(`square/${shops.square}`);
    const customer = (who: string) => ({ name: `${who} ${tag}`, email: `${who.toLowerCase()}-${tag}@harbor.test` });
    await control(`shopify/${shops.shopify}/orders`, { lines: [{ sku, quantity: 2 }], customer: customer('Grace') });
    await control(`bigcommerce/${shops.bigcommerce}/orders`, {
      lines: [{ sku, quantity: 1 }],
      customer: customer('Alan'),
    });
    await control(`square/${shops.square}/orders`, {
      lines: [{ sku: Object.keys(squareSnap.stock)[0] as string, quantity: 3 }],
      location: squareSnap.locations[0]?.id,
      fulfillmentType: 'pickup',
      customer: customer('Ada'),
    });
    await expect
      .poll(async () => (await ordersListed(page)).filter((o) => o.customer.includes(tag)).length, SOON)
      .toBe(3);

    // 30 days by day (the defaults): the Sales figure and each channel's sales are what the list adds up to.
    // (Read again until the two agree: a shop's own orders may still be arriving.)
    let want = listSums(await ordersListed(page));
    expect(Object.keys(want.byChannel)).toHaveLength(3);
    await expect
      .poll(async () => {
        want = listSums(await ordersListed(page));
        await page.getByRole('link', { name: 'Dashboard' }).first().click();
        await page.waitForURL(/\/dashboard$/);
        return dashboardSales(page);
      }, SOON)
      .toEqual(want);

    // A year by month, chosen on the page: the address says so and the figures are the same.
    await page
      .locator('label')
      .filter({ hasText: /^1 year$/ })
      .click();
    await page.waitForURL(/timeframe=1y/);
    await page
      .locator('label')
      .filter({ hasText: /^Month$/ })
      .click();
    await page.waitForURL(/granularity=month/);
    await expect.poll(() => dashboardSales(page), SOON).toEqual(want);
    // The address alone opens the same view.
    await page.goto(`${baseUrl}/dashboard?timeframe=1y&granularity=month`);
    expect(await dashboardSales(page)).toEqual(want);
    console.log(`[dashboard] journey took ${Math.round(performance.now() - started)} ms`);
    expect(problemsOf(page)).toEqual([]);
  });
});
