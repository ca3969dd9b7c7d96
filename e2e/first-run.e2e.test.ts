// Issue 19's journey: a new merchant without a point of sale connects only the sandbox Shopify shop, takes
// the offer on the dashboard to create locations from the shop's, and sees the shop's stock on the products
// screen (before, every product showed 0 on hand).
import { describe, expect, inject, it } from 'vitest';
import { problemsOf, useBrowser } from './browser.ts';
import { connectShopify, newActiveMerchant, type ShopSnapshot as Snapshot, sandboxControl } from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');
const control = sandboxControl(sandboxUrl);

describe('first run without a point of sale in Chromium', () => {
  const newPage = useBrowser();

  it('connects only Shopify, creates locations from the shop in one step, and shows its stock', {
    timeout: 120_000,
  }, async () => {
    const page = await newPage();
    const tag = Date.now().toString(36);
    const shop = `firstrun-${tag}`;
    await control(`shopify/${shop}/reset`, { products: 6 });

    await newActiveMerchant(page, {
      baseUrl,
      sandboxUrl,
      plan: 'Growth',
      email: `firstrun-${tag}@harbor.test`,
      password: 'first run journey 2026',
      business: 'Harbor Online',
    });

    await connectShopify(page, baseUrl, sandboxUrl, shop);

    // The dashboard's checklist offers the shop's locations, with their store ids to edit; one click.
    const snap = await control<Snapshot>(`shopify/${shop}`);
    await page.goto(`${baseUrl}/dashboard`);
    const offer = page.getByRole('region', { name: 'Create your locations from Shopify' });
    const form = offer.getByRole('form', { name: 'Locations to create from Shopify' });
    for (const location of snap.locations) {
      await expect.poll(() => form.getByLabel(`Name of ${location.name}`).inputValue()).toBe(location.name);
    }
    await form.getByLabel('Store id of Warehouse').fill('WH-1');
    await form.getByRole('button', { name: `Create ${snap.locations.length} locations and import stock` }).click();
    await offer.getByText('Locations created').waitFor();
    await offer.getByRole('link', { name: 'See the products' }).click();
    await page.waitForURL(/\/products\/[^/?]+/);

    // A SKU the shop holds: its on hand is the shop's, summed over the locations. Shopify's on hand, not what it
    // has available: the shop's waiting orders hold units committed, which are on our shelves too (reserved), in
    // whichever order their first pull and the stock's import come (ADR 0008, "Older than our knowledge").
    // (A level with nothing available seeds no stock of ours, committed units or not: such SKUs are left out.)
    const [sku, at] = Object.entries(snap.stock).find(
      ([sku, levels]) =>
        Object.values(levels).some((qty) => qty > 0) &&
        Object.entries(snap.onHand?.[sku] ?? {}).every(([id, qty]) => qty <= 0 || (levels[id] ?? 0) > 0),
    ) as [string, Record<string, number>];
    const held = snap.onHand?.[sku] ?? {};
    const total = Object.keys(at).reduce((sum, id) => sum + Math.max(0, held[id] ?? 0), 0);
    const listUrl = `${page.url().split('?')[0]}?filter=${encodeURIComponent(JSON.stringify({ search: sku }))}`;
    const table = page.getByRole('table', { name: 'Products' });
    const onHand = async () => {
      await page.goto(listUrl);
      const row = table.getByRole('row').filter({ hasText: sku }).first();
      if (
        !(await row.waitFor({ timeout: 5000 }).then(
          () => true,
          () => false,
        ))
      )
        return null;
      const headers = await table.getByRole('columnheader').allInnerTexts();
      const column = headers.findIndex((h) => h.trim() === 'On hand');
      return (await row.getByRole('cell').nth(column).innerText()).trim();
    };
    await expect.poll(onHand, { timeout: 60_000, interval: 1000 }).toBe(total.toLocaleString('en-US'));
    expect(total).toBeGreaterThan(0);
    // Every location maps: nothing says stock was left out.
    expect(await page.getByText(/was not imported: map them/).count()).toBe(0);

    // The locations are the shop's, with the edited store id.
    await page.goto(`${baseUrl}/locations`);
    const locations = page.getByRole('table', { name: 'Locations' });
    for (const location of snap.locations) await locations.getByText(location.name).first().waitFor();
    await locations.getByText('WH-1').waitFor();
    expect(problemsOf(page)).toEqual([]);
  });
});
