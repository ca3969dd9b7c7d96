// Issue 6's journey: a merchant with the three sandbox shops connected imports the catalog, sees products
// and stock per location, sets a buffer, makes a POS sale in the Square simulator, and sees the new
// quantity on the other channels and a finished stock push on /syncs/.
import { describe, expect, inject, it } from 'vitest';
import { problemsOf, useBrowser } from './browser.ts';
import {
  connectBigCommerce,
  connectShopify,
  connectSquare,
  importCatalog,
  importFromChannelPage,
  newActiveMerchant,
  type ShopSnapshot as Snapshot,
  sandboxControl,
} from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');
const control = sandboxControl(sandboxUrl);

describe('catalog and stock across channels in Chromium', () => {
  const newPage = useBrowser();

  it('imports three shops, sets a buffer, and carries a POS sale to Shopify and BigCommerce', {
    timeout: 700_000,
  }, async () => {
    const page = await newPage();
    const tag = Date.now().toString(36);
    const shop = `stock-${tag}`;
    const hash = `stock${tag}`;
    // Small platform shops keep the import quick; Square keeps the demo size.
    await control(`shopify/${shop}/reset`, { products: 12 });
    await control(`bigcommerce/${hash}/reset`, { products: 12 });

    await newActiveMerchant(page, {
      baseUrl,
      sandboxUrl,
      plan: 'Growth',
      email: `stock-${tag}@harbor.test`,
      password: 'stock journey 2026',
      business: 'Harbor Stock',
    });

    // Square first: its stores become the merchant's locations when its catalog is imported.
    const { channelId: squareChannelId, merchantId } = await connectSquare(
      page,
      baseUrl,
      sandboxUrl,
      `Harbor Stock ${tag}`,
    );
    expect(merchantId).not.toBe('');
    await importFromChannelPage(page, 'Square POS');

    await connectShopify(page, baseUrl, sandboxUrl, shop);
    await connectBigCommerce(page, baseUrl, sandboxUrl, hash);

    await importCatalog(page, baseUrl, 'Shopify');
    await importCatalog(page, baseUrl, 'BigCommerce');

    // Three catalog imports finish on the syncs screen (a variant without a SKU would make one partly failed).
    await page.goto(`${baseUrl}/syncs?type=catalog_import`);
    const syncs = page.getByRole('table', { name: 'Syncs' });
    const finished = syncs.getByRole('row').filter({ hasText: /Succeeded|Partly failed/ });
    await expect
      .poll(
        async () => {
          await page.reload();
          await syncs.waitFor();
          return finished.count();
        },
        { timeout: 150_000, interval: 2000 },
      )
      .toBe(3)
      .catch(async (err) => {
        throw new Error(`${err}\n${await syncs.innerText()}`);
      });

    // Square's stores are now locations.
    const square = await control<Snapshot>(`square/${merchantId}`);
    await page.goto(`${baseUrl}/locations`);
    for (const location of square.locations) {
      await page.getByRole('table', { name: 'Locations' }).getByText(location.name).first().waitFor();
    }

    // A SKU every shop sells, in stock at a Square store.
    const shopify = await control<Snapshot>(`shopify/${shop}`);
    const bigcommerce = await control<Snapshot>(`bigcommerce/${hash}`);
    const store = square.locations[0] as { id: string; name: string };
    const sku = Object.keys(shopify.stock).find(
      (s) => bigcommerce.stock[s] && (square.stock[s]?.[store.id] ?? 0) >= 5,
    ) as string;
    expect(sku, 'a SKU sold in every shop with stock at the first Square store').toBeTruthy();
    const shopifyLocation = shopify.locations.find((l) => l.name === store.name)?.id as string;
    const bigcommerceLocation = bigcommerce.locations.find((l) => l.name === store.name)?.id as string;

    // The product shows its stock per location.
    await page.goto(
      `${baseUrl}/products/${squareChannelId}?filter=${encodeURIComponent(JSON.stringify({ search: sku }))}`,
    );
    const products = page.getByRole('table', { name: 'Products' });
    await products.getByText(sku).first().waitFor();
    await products.getByRole('link').filter({ hasText: /\S/ }).first().click();
    await page.waitForURL(/\/products\/[^/]+\/[^/?]+/);
    // The product shows its first variant's stock; the SKU may be another of its variants (one run chose its
    // second, the first having less than 5 at the store, and waited for a table that was not shown).
    const variants = page.getByRole('table', { name: 'Variants' });
    await variants.getByText(sku).first().waitFor();
    const choose = variants.getByRole('link', { name: sku });
    if ((await choose.count()) > 0) await choose.first().click();
    const stock = page.getByRole('table', { name: `Stock of ${sku} per location` });
    await stock.getByText(store.name).waitFor({ timeout: 60_000 });

    // A buffer of 2 units held back from Shopify at that store.
    await page.goto(`${baseUrl}/dynamic-buffers/create`);
    const form = page.getByRole('form', { name: 'New buffer' });
    await form.getByRole('combobox', { name: /Channel/ }).click();
    await page
      .getByRole('option', { name: /Shopify/ })
      .first()
      .click();
    await form.getByRole('combobox', { name: /Location/ }).click();
    await page.getByRole('option', { name: new RegExp(`^${store.name}`) }).click();
    await form.getByRole('combobox', { name: /SKU/ }).fill(sku);
    // The field suggests catalog SKUs with their product once typing pauses; the typed SKU is enough.
    await page
      .getByRole('option')
      .filter({ hasText: sku })
      .first()
      .click({ timeout: 10_000 })
      .catch(() => page.keyboard.press('Escape'));
    await form.getByLabel(/Quantity held back/).fill('2');
    await form.getByRole('button', { name: 'Add buffer' }).click();
    await page.waitForURL(/\/dynamic-buffers(\/?\?|\/?$)/);

    // Our on-hand at that store is what Square holds now; a POS sale of one unit there.
    const before = (await control<Snapshot>(`square/${merchantId}`)).stock[sku]?.[store.id] ?? 0;
    await control(`square/${merchantId}/orders`, { lines: [{ sku, quantity: 1 }], location: store.id });
    const expected = before - 1;
    const soldAt = performance.now();
    // Not a timed test: the wait is generous for a loaded CI machine; the benchmark owns the figures.

    await expect
      .poll(async () => (await control<Snapshot>(`bigcommerce/${hash}`)).stock[sku]?.[bigcommerceLocation], {
        timeout: 240_000,
        interval: 500,
      })
      .toBe(expected);
    await expect
      .poll(async () => (await control<Snapshot>(`shopify/${shop}`)).stock[sku]?.[shopifyLocation], {
        timeout: 240_000,
        interval: 500,
      })
      .toBe(Math.max(0, expected - 2));
    console.log(`POS sale visible on BigCommerce and Shopify after ${Math.round(performance.now() - soldAt)} ms`);

    // The product explains Shopify's number, and the stock push is a finished run.
    await page.goto(`${baseUrl}/syncs?type=inventory_push`);
    await expect
      .poll(
        async () => {
          await page.reload();
          await syncs.waitFor();
          return syncs.getByRole('row').filter({ hasText: 'Succeeded' }).count();
        },
        { timeout: 30_000, interval: 2000 },
      )
      .toBeGreaterThan(0);
    expect(problemsOf(page)).toEqual([]);
  });
});
