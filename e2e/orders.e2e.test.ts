// Issue 13's journey: a merchant with the three sandbox shops connected places a web order in the Shopify
// simulator and a pickup order in Square, sees both on /orders/ without a reload, opens one, comments on it and
// puts it on hold, cancels the other, and sees the reserved units leave and come back on the other channels.
import { describe, expect, inject, it } from 'vitest';
import { openLink, problemsOf, tableLayoutProblems, useBrowser } from './browser.ts';
import { merchantWithThreeShops, type ShopSnapshot, sandboxControl, stockTotals } from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');
const control = sandboxControl(sandboxUrl);

/** Waits are polls with a ceiling, never fixed sleeps; the ceilings leave room for a loaded two-core machine. */
const SOON = { timeout: 30_000, interval: 250 };

describe('orders across channels in Chromium', () => {
  const newPage = useBrowser();

  it('shows a Shopify web order and a Square pickup order, comments on one, holds it, cancels the other', {
    timeout: 360_000,
  }, async () => {
    const started = performance.now();
    const page = await newPage();
    // Small shops keep the catalog imports quick.
    const { shops, tag } = await merchantWithThreeShops(page, {
      baseUrl,
      sandboxUrl,
      name: 'orders',
      business: 'Harbor Orders',
      products: 8,
    });
    const totals = (sku: string) => stockTotals(sandboxUrl, shops, sku);
    console.log(`[orders] three shops connected and imported after ${Math.round(performance.now() - started)} ms`);

    // Two SKUs every shop sells, with stock at the first Square store (and Shopify's store of the same name).
    const snaps = {
      square: await control<ShopSnapshot>(`square/${shops.square}`),
      shopify: await control<ShopSnapshot>(`shopify/${shops.shopify}`),
      bigcommerce: await control<ShopSnapshot>(`bigcommerce/${shops.bigcommerce}`),
    };
    const store = snaps.square.locations[0] as { id: string; name: string };
    const shopifyStore = snaps.shopify.locations.find((l) => l.name === store.name)?.id as string;
    const [webSku, pickupSku] = Object.keys(snaps.shopify.stock).filter(
      (sku) =>
        snaps.bigcommerce.stock[sku] &&
        (snaps.square.stock[sku]?.[store.id] ?? 0) >= 3 &&
        (snaps.shopify.stock[sku]?.[shopifyStore] ?? 0) >= 3,
    ) as [string, string];
    expect(pickupSku, 'two SKUs sold everywhere with stock at the first Square store').toBeTruthy();

    // Once the catalog pushes (and the open orders' reservations) have settled, every shop shows what Square
    // counts at each store. What still differs is listed, so a failure says where.
    const unsettled = async () => {
      const now = {
        square: await control<ShopSnapshot>(`square/${shops.square}`),
        shopify: await control<ShopSnapshot>(`shopify/${shops.shopify}`),
        bigcommerce: await control<ShopSnapshot>(`bigcommerce/${shops.bigcommerce}`),
      };
      const at = (snap: ShopSnapshot, sku: string, name: string) =>
        snap.stock[sku]?.[snap.locations.find((l) => l.name === name)?.id ?? ''];
      return [webSku, pickupSku].flatMap((sku) =>
        now.square.locations.flatMap((l) => {
          const square = now.square.stock[sku]?.[l.id];
          const shopify = at(now.shopify, sku, l.name);
          const bigcommerce = at(now.bigcommerce, sku, l.name);
          return shopify === square && bigcommerce === square
            ? []
            : [`${sku} at ${l.name}: square ${square}, shopify ${shopify}, bigcommerce ${bigcommerce}`];
        }),
      );
    };
    await expect.poll(unsettled, { ...SOON, timeout: 60_000 }).toEqual([]);
    const webBefore = await totals(webSku);
    const pickupBefore = await totals(pickupSku);

    // The list is open before the orders exist: they must appear without a reload.
    await page.goto(`${baseUrl}/orders`);
    await page.getByRole('tablist', { name: 'Order status' }).waitFor();

    await control(`shopify/${shops.shopify}/orders`, {
      lines: [{ sku: webSku, quantity: 2 }],
      location: shopifyStore,
      customer: { name: 'Grace Hopper', email: `grace-${tag}@harbor.test` },
    });
    await control(`square/${shops.square}/orders`, {
      lines: [{ sku: pickupSku, quantity: 1 }],
      location: store.id,
      fulfillmentType: 'pickup',
      customer: { name: 'Alan Turing', email: `alan-${tag}@harbor.test` },
    });
    const placedAt = performance.now();
    const orders = page.getByRole('table', { name: 'Orders' });
    const webRow = orders.getByRole('row').filter({ hasText: `grace-${tag}@harbor.test` });
    const pickupRow = orders.getByRole('row').filter({ hasText: `alan-${tag}@harbor.test` });
    await webRow.waitFor({ timeout: 20_000 });
    await pickupRow.waitFor({ timeout: 20_000 });
    console.log(`[orders] both orders listed ${Math.round(performance.now() - placedAt)} ms after they were placed`);
    await expect.poll(() => webRow.innerText()).toMatch(/Shopify[\s\S]*Ship[\s\S]*Open/i);
    await expect.poll(() => pickupRow.innerText()).toMatch(/Square POS[\s\S]*Pickup[\s\S]*Open/i);
    // In a 1280 px window every column reads beside the navigation: the list had Items and Total behind a sideways
    // scroll, "Order ↕" on two lines and "Open" cut to "OP…".
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await tableLayoutProblems(orders)).toEqual([]);

    // The reserved units leave the other channels (and each channel's own sale is counted once).
    await expect
      .poll(() => totals(webSku), SOON)
      .toEqual({
        shopify: webBefore.shopify - 2,
        bigcommerce: webBefore.bigcommerce - 2,
        square: webBefore.square - 2,
      });
    await expect
      .poll(() => totals(pickupSku), SOON)
      .toEqual({
        shopify: pickupBefore.shopify - 1,
        bigcommerce: pickupBefore.bigcommerce - 1,
        square: pickupBefore.square - 1,
      });

    // The pickup order: a comment, then Open → On hold.
    await openLink(page, pickupRow.getByRole('link').first());
    await page.waitForURL(/\/orders\/[^/?]+/);
    await page.getByRole('heading', { name: /^Order / }).waitFor();
    // "Unit price" and "Line total" broke onto two lines at this width.
    expect(await tableLayoutProblems(page.getByRole('table', { name: 'Lines' }))).toEqual([]);
    await page.getByRole('textbox', { name: 'Add a comment' }).fill('Customer asked to collect on Friday');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByRole('list', { name: 'Comments' }).getByText('Customer asked to collect on Friday').waitFor();
    const statusForm = page.getByRole('form', { name: 'Change status' });
    await statusForm.getByLabel('Change status to').click();
    await page.getByRole('option', { name: 'On hold' }).click();
    await statusForm.getByRole('button', { name: 'Change status' }).click();
    await page.getByText('Open → On hold').waitFor();

    // Back to the same list, then the web order: cancelled here, written back to Shopify.
    await page.getByRole('link', { name: '← Orders' }).click();
    await openLink(page, webRow.getByRole('link').first());
    await page.getByRole('heading', { name: /^Order / }).waitFor();
    await page.getByRole('button', { name: 'Cancel order' }).click();
    const dialog = page.getByRole('dialog', { name: /^Cancel order / });
    await dialog.getByRole('textbox', { name: 'Reason (optional)' }).fill('Customer changed their mind');
    await dialog.getByRole('button', { name: 'Cancel order' }).click();
    await page.getByText(/: Customer changed their mind$/).waitFor();
    // The cancel went to Shopify: its write-back ends Done on the timeline (the page reads it again meanwhile).
    await page
      .locator('.mantine-Timeline-item', { hasText: 'Sent to the channel' })
      .getByText('Done')
      .waitFor({ timeout: 20_000 });

    // The web order's units come back everywhere; the pickup order still holds its unit.
    await expect.poll(() => totals(webSku), SOON).toEqual(webBefore);
    expect(await totals(pickupSku)).toEqual({
      shopify: pickupBefore.shopify - 1,
      bigcommerce: pickupBefore.bigcommerce - 1,
      square: pickupBefore.square - 1,
    });
    console.log(`[orders] journey took ${Math.round(performance.now() - started)} ms`);
    expect(problemsOf(page)).toEqual([]);
  });
});
