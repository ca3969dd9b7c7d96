// Issue 15's journey: store staff open their store's queue, print a picking list, scan the items of a Shopify
// web order, pack it and buy its label with a double click (one label; Shopify's order fulfilled with the
// tracking); a Square pickup order goes ready for pickup (the customer's e-mail in the outbox, Square told) and is
// picked up (Square told again); a curbside order stands out.
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { openLink, problemsOf, useBrowser } from './browser.ts';
import {
  connectShopify,
  connectSquare,
  importCatalog,
  importFromChannelPage,
  newActiveMerchant,
  type ShopSnapshot,
  sandboxControl,
} from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');
const control = sandboxControl(sandboxUrl);
const SOON = { timeout: 30_000, interval: 250 };

/** Our v2 API with the signed-in user's token: which store's queue holds an order. */
async function storeOf(
  page: Page,
  storeIds: string[],
  orderRef: string,
): Promise<{ storeId: string; number: string } | null> {
  for (const storeId of storeIds) {
    const body = await page.evaluate(
      async ({ url }) => {
        const res = await fetch(url, { headers: { authorization: `Bearer ${localStorage.getItem('token')}` } });
        return res.json();
      },
      {
        url: `${baseUrl}/api/v2/fulfillment?scope=&store_id=${encodeURIComponent(storeId)}&order_ids=${encodeURIComponent(orderRef)}`,
      },
    );
    const found = (body as { results?: { number: string }[] }).results?.[0];
    if (found) return { storeId, number: found.number };
  }
  return null;
}

describe('fulfillment in Chromium', () => {
  const newPage = useBrowser();

  it('works a store queue: picking list, scanning, packing, pickup and curbside', { timeout: 240_000 }, async () => {
    const started = performance.now();
    const page = await newPage();
    const tag = Date.now().toString(36);
    const shop = `fulfil-${tag}`;
    await control(`shopify/${shop}/reset`, { products: 6 });
    await newActiveMerchant(page, {
      baseUrl,
      sandboxUrl,
      plan: 'Growth',
      email: `fulfil-${tag}@harbor.test`,
      password: 'fulfillment journey 2026',
      business: 'Harbor Fulfil',
    });
    const square = await connectSquare(page, baseUrl, sandboxUrl, `Harbor Fulfil ${tag}`);
    await control(`square/${square.merchantId}/reset`, { products: 6 });
    await importFromChannelPage(page, 'Square POS');
    await connectShopify(page, baseUrl, sandboxUrl, shop);
    await importCatalog(page, baseUrl, 'Shopify');

    // The shops once our first pushes after the imports have landed: three SKUs with stock at the first store in
    // both. (Two reads alike were taken for "landed" until 2026-11-27, when CI read both before Shopify's push began:
    // the shops still held their own seeds.)
    let sq = await control<ShopSnapshot>(`square/${square.merchantId}`);
    let sh = await control<ShopSnapshot>(`shopify/${shop}`);
    let store = sq.locations[0] as { id: string; name: string };
    let skus: string[] = [];
    await expect
      .poll(async () => {
        [sq, sh] = await Promise.all([
          control<ShopSnapshot>(`square/${square.merchantId}`),
          control<ShopSnapshot>(`shopify/${shop}`),
        ]);
        store = sq.locations[0] as { id: string; name: string };
        const shopifyStore = sh.locations.find((l) => l.name === store.name)?.id as string;
        skus = Object.keys(sh.stock).filter(
          (sku) => (sq.stock[sku]?.[store.id] ?? 0) >= 3 && (sh.stock[sku]?.[shopifyStore] ?? 0) >= 3,
        );
        return skus.length >= 3;
      }, SOON)
      .toBe(true);
    const shopifyStore = sh.locations.find((l) => l.name === store.name)?.id as string;
    const [webSku, pickupSku, curbSku] = skus as [string, string, string];
    expect(
      curbSku,
      `three SKUs with stock at the first store (${JSON.stringify({ sq: sq.stock, sh: sh.stock })})`,
    ).toBeTruthy();

    // The orders: a Shopify web order to ship, a Square pickup and a Square curbside pickup at the first store.
    const web = await control<{ orderId: string }>(`shopify/${shop}/orders`, {
      lines: [{ sku: webSku, quantity: 2 }],
      location: shopifyStore,
      customer: { name: 'Grace Hopper', email: `grace-${tag}@harbor.test` },
    });
    await control<{ orderId: string }>(`square/${square.merchantId}/orders`, {
      lines: [{ sku: pickupSku, quantity: 1 }],
      location: store.id,
      fulfillmentType: 'pickup',
      customer: { name: 'Alan Turing', email: `alan-${tag}@harbor.test` },
    });
    await control(`square/${square.merchantId}/orders`, {
      lines: [{ sku: curbSku, quantity: 1 }],
      location: store.id,
      fulfillmentType: 'curbside_pickup',
      customer: { name: 'Katherine Johnson', email: `katherine-${tag}@harbor.test` },
    });

    // The web order is in some store's queue (routing picks it): staff open that store's queue.
    await page.goto(`${baseUrl}/fulfillment`);
    await page.getByRole('tablist', { name: 'Fulfillment scope' }).waitFor();
    const storeIds = sq.locations.map((l) => l.id);
    await expect.poll(() => storeOf(page, storeIds, web.orderId), SOON).not.toBeNull();
    const webStore = (await storeOf(page, storeIds, web.orderId)) as { storeId: string; number: string };
    await page.goto(
      `${baseUrl}/fulfillment?filter=${encodeURIComponent(JSON.stringify({ scope: 'toShip', store_id: webStore.storeId }))}`,
    );
    const queue = page.getByRole('table', { name: 'Fulfillment queue' });
    const webRow = queue
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: webStore.number, exact: true }) });
    await webRow.waitFor({ timeout: 20_000 });

    // A picking list for that order, printed as a PDF with barcodes.
    await webRow.getByRole('checkbox').check();
    await page.getByRole('link', { name: 'Picking list (1)' }).click();
    const picking = page.getByRole('table', { name: 'Picking list' });
    await picking.getByRole('row').filter({ hasText: webSku }).waitFor();
    const [pdf] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/fulfillment/picking-list.pdf')),
      page.getByRole('button', { name: 'Print PDF' }).click(),
    ]);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-');

    // Scanning: a wrong item says so; the order's two units are picked, then packed.
    await page.getByRole('link', { name: '← Fulfillment' }).click();
    await openLink(page, webRow.getByRole('link').first());
    const scanField = page.getByRole('textbox', { name: /Scan an item/ });
    await expect.poll(() => scanField.evaluate((el) => el === document.activeElement), SOON).toBe(true);
    await page.keyboard.type('NOT-A-SKU');
    await page.keyboard.press('Enter');
    await page.getByText('Wrong item: NOT-A-SKU is not on this order.').waitFor();
    for (const n of [1, 2]) {
      await page.keyboard.type(webSku);
      await page.keyboard.press('Enter');
      await page.getByText(`${webSku}: ${n} of 2 picked.`).waitFor();
    }
    await page.getByRole('button', { name: 'Mark packed' }).click();
    await page.getByText('Packed.').first().waitFor();

    // Its label: rates, bought with a double click (one label), printed; Shopify's order shows the tracking.
    const shipments = page.getByRole('region', { name: 'Shipments' });
    await shipments.getByRole('button', { name: 'Buy label' }).click();
    await page.getByLabel(/^Weight \(/).fill('12');
    await page.getByTestId('get-rates').click();
    await page.getByTestId('rates-table').waitFor();
    const [label] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/shipping/getShippingLabel'), { timeout: 30_000 }),
      page.getByTestId('buy-label-confirm').dblclick(),
    ]);
    expect(label.headers()['content-type']).toContain('application/pdf');
    const tracking = (await page.getByTestId('tracking-link').first().innerText()).trim();
    expect(tracking).not.toBe('');
    expect(await page.getByTestId('tracking-link').count()).toBe(1);
    const shopifyOrder = () =>
      control<{ fulfillment_status: string | null; fulfillments: { tracking_number: string | null }[] }>(
        `shopify/${shop}/orders/${encodeURIComponent(web.orderId)}`,
      );
    await expect.poll(async () => (await shopifyOrder()).fulfillment_status, SOON).toBe('fulfilled');
    expect((await shopifyOrder()).fulfillments.map((f) => f.tracking_number)).toEqual([tracking]);

    // Pickups: the curbside order is marked apart from the in-store one.
    const pickupTab = `${baseUrl}/fulfillment?filter=${encodeURIComponent(JSON.stringify({ scope: 'pickup', store_id: store.id }))}`;
    await page.goto(pickupTab);
    const alanRow = queue.getByRole('row').filter({ hasText: 'Alan Turing' });
    const katherineRow = queue.getByRole('row').filter({ hasText: 'Katherine Johnson' });
    await alanRow.waitFor({ timeout: 20_000 });
    await katherineRow.waitFor({ timeout: 20_000 });
    expect(await katherineRow.getAttribute('data-curbside')).toBe('true');
    expect(await alanRow.getAttribute('data-curbside')).toBeNull();
    await openLink(page, katherineRow.getByRole('link').first());
    await page.getByText('Curbside pickup', { exact: true }).first().waitFor();
    await page.goto(pickupTab);

    // The pickup order: ready for pickup (e-mail in the outbox, Square PREPARED), then picked up (COMPLETED).
    await openLink(page, alanRow.getByRole('link').first());
    await page.getByRole('button', { name: 'Ready for pickup' }).click();
    await page.getByText('Ready for pickup: the customer is e-mailed.').waitFor();
    const orderPage = page.url().split('?')[0] as string;
    // The channel is told by a job: Square's pickup fulfillment PREPARED, on the order's timeline as done.
    await page.getByRole('link', { name: 'Order details' }).click();
    await page.getByText(/^Marked ready for pickup at /).waitFor({ timeout: 30_000 });
    await page.goto(orderPage);
    await page.getByRole('button', { name: 'Picked up', exact: true }).first().click();
    await page.getByText('Picked up.').first().waitFor();
    await page.getByRole('link', { name: 'Order details' }).click();
    await page.getByText(/^Marked picked up at /).waitFor({ timeout: 30_000 });
    await page.getByText('Picked up', { exact: true }).first().waitFor();

    await page.goto(`${baseUrl}/dev/mailbox`);
    await page
      .locator('.mantine-Accordion-item', { hasText: `alan-${tag}@harbor.test` })
      .filter({ hasText: 'is ready for pickup' })
      .first()
      .waitFor({ timeout: 20_000 });
    console.log(`[fulfillment] journey took ${Math.round(performance.now() - started)} ms`);
    expect(problemsOf(page)).toEqual([]);
  });
});
