import { MESSAGES } from '@switchyard/contracts';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { signIn } from './browser.ts';

export interface Merchant {
  email: string;
  password: string;
  business?: string;
}

/** Registers through the form, confirms from the development mailbox, and signs in. */
export async function registerConfirmAndSignIn(page: Page, baseUrl: string, merchant: Merchant) {
  await page.goto(`${baseUrl}/register`);
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByLabel('Business name').fill(merchant.business ?? 'Engine Supplies');
  await page.getByLabel('Phone').fill('+1 555 0142');
  await page.getByLabel('E-mail address').fill(merchant.email);
  await page.getByLabel(/^Password/).fill(merchant.password);
  await page.getByLabel('Repeat password').fill(merchant.password);
  await page.getByRole('checkbox').click();
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/confirmation/);

  await page.goto(`${baseUrl}/dev/mailbox`);
  const item = page
    .locator('.mantine-Accordion-item', { hasText: merchant.email })
    .filter({ hasText: 'Confirm your Switchyard account' })
    .first();
  await item.getByRole('button').first().click();
  const link = item.getByRole('link').first();
  const href = await link.getAttribute('href');
  expect(href).toMatch(new RegExp(`^${baseUrl}/confirm/[A-Za-z0-9_-]{43}$`));
  // The mail's address (checked above), opened as from a mail program.
  await page.goto(href as string);
  // Once in a while this page ended on the not-found page at /confirm: the code started with `_`, which the router
  // takes for a pathless segment. Codes no longer start with `_` or `-` (server auth/codes.ts).
  await page.getByText(MESSAGES.accountConfirmed).waitFor();
  await page.waitForURL(/\/login/);
  await signIn(page, baseUrl, merchant.email, merchant.password);
}

/** Fills the simulator's hosted payment page (another origin) by its field labels and subscribes. */
export async function payWithCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiration date').fill('12 / 34');
  await page.getByLabel('CVC').fill('123');
  await page.getByLabel('Cardholder name').fill('Ada Lovelace');
  await page.getByRole('button', { name: 'Subscribe' }).click();
}

/**
 * A new merchant whose account is `active`: registered, confirmed, signed in, and subscribed to `plan` with
 * the simulator's good test card, ending on the dashboard.
 */
export async function newActiveMerchant(
  page: Page,
  {
    baseUrl,
    sandboxUrl,
    plan = 'Growth',
    ...merchant
  }: Merchant & { baseUrl: string; sandboxUrl: string; plan?: string },
) {
  await registerConfirmAndSignIn(page, baseUrl, merchant);
  await page.waitForURL(/\/subscription\/plans/);
  await page
    .getByRole('article', { name: plan })
    .getByRole('button', { name: new RegExp(`^Choose ${plan}`) })
    .click();
  await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
  await payWithCard(page, '4242 4242 4242 4242');
  await page.waitForURL(/\/dashboard/, { timeout: 30_000 });
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

/**
 * What the control API says a simulated shop holds: its locations and each SKU's quantity per location (`stock`:
 * available to sell; `onHand`, Shopify only: available plus what is committed to orders and the other on-hand states).
 */
export interface ShopSnapshot {
  locations: { id: string; name: string }[];
  stock: Record<string, Record<string, number>>;
  onHand?: Record<string, Record<string, number>>;
}

/** The sandbox's control API (`/_control/…`): GET without a body, POST with one. */
export function sandboxControl(sandboxUrl: string) {
  return async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${sandboxUrl}/_control/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`control ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
}

/** On a connected channel's page: starts a full catalog import and waits for it to be under way. */
export async function importFromChannelPage(page: Page, provider: string) {
  await page.getByRole('group', { name: 'Sync actions' }).getByRole('button', { name: 'Import catalog' }).click();
  const dialog = page.getByRole('dialog', { name: `Import the ${provider} catalog` });
  await dialog.getByRole('button', { name: 'Start import' }).click();
  await page.getByText(`Importing the ${provider} catalog`).waitFor();
}

/** Opens the connected channel's page from the channel list and starts a full catalog import. */
export async function importCatalog(page: Page, baseUrl: string, provider: string) {
  await page.goto(`${baseUrl}/channels`);
  const row = page
    .getByRole('table', { name: 'Channels' })
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: provider, exact: true }) });
  await row.getByRole('link', { name: /^Settings of / }).click();
  await page.waitForURL(/\/channel-settings$/);
  await importFromChannelPage(page, provider);
}

/**
 * Connects the sandbox Square through its consent page as `business`, ending on the channel's settings;
 * answers the channel id and the seller's merchant id (the simulator's shop key).
 */
export async function connectSquare(page: Page, baseUrl: string, sandboxUrl: string, business: string) {
  await page.goto(`${baseUrl}/channels`);
  await page.getByRole('link', { name: 'Connect Square POS' }).click();
  await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
  await page.getByLabel(/business name/).fill(business);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(/\/channels\/[^/]+\/channel-settings/);
  const channelId = /\/channels\/([^/]+)\//.exec(page.url())?.[1] ?? '';
  const merchantId = ((await page.getByText(/^Square POS · /).textContent()) ?? '').replace('Square POS · ', '').trim();
  return { channelId, merchantId };
}

/** Connects the sandbox Shopify shop `{shop}.myshopify.com` through its install page. */
export async function connectShopify(page: Page, baseUrl: string, sandboxUrl: string, shop: string) {
  await page.goto(`${baseUrl}/channels`);
  await page.getByRole('button', { name: 'Connect Shopify' }).click();
  await page.waitForURL(/\/channels\/create\//);
  await page.getByLabel(/Shop address/).fill(`${shop}.myshopify.com`);
  await page.getByRole('button', { name: 'Continue to Shopify' }).click();
  await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
  await page.getByRole('button', { name: 'Install app' }).click();
  await page.waitForURL(/\/channels\/shopify\/connected/);
}

/** Connects the sandbox BigCommerce store `hash` through its install page. */
export async function connectBigCommerce(page: Page, baseUrl: string, sandboxUrl: string, hash: string) {
  await page.goto(`${baseUrl}/channels`);
  await page.getByRole('button', { name: 'Connect BigCommerce' }).click();
  await page.waitForURL(/\/channels\/create\//);
  await page.getByLabel(/Store hash/).fill(hash);
  await page.getByRole('button', { name: 'Continue to BigCommerce' }).click();
  await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
  await page.getByRole('button', { name: 'Install' }).click();
  await page.waitForURL(/\/channels\/bigcommerce\/connected/);
}

export type Provider = 'shopify' | 'bigcommerce' | 'square';
export type Shops = Record<Provider, string>;

/**
 * What each shop holds of `sku`, summed over its locations (a reservation lowers it wherever it was made), as
 * the simulators' control API says.
 */
export async function stockTotals(sandboxUrl: string, shops: Shops, sku: string): Promise<Record<Provider, number>> {
  const control = sandboxControl(sandboxUrl);
  const entries = await Promise.all(
    (Object.entries(shops) as [Provider, string][]).map(async ([provider, shop]) => {
      const snap = await control<ShopSnapshot>(`${provider}/${shop}`);
      return [provider, Object.values(snap.stock[sku] ?? {}).reduce((s, n) => s + n, 0)] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<Provider, number>;
}

/** Rows of the syncs screen filtered to `type` that ended well, counted after a reload. */
async function finishedRuns(page: Page, baseUrl: string, type: string, ended: RegExp) {
  await page.goto(`${baseUrl}/syncs?type=${type}`);
  const syncs = page.getByRole('table', { name: 'Syncs' });
  await syncs.waitFor();
  return { syncs, count: await syncs.getByRole('row').filter({ hasText: ended }).count() };
}

/**
 * The `channels` catalog imports end on the syncs screen (a variant without a SKU would make one partly failed),
 * and then the order imports they queue: the shops' open orders are in and reserved, so stock read after this
 * does not move under the journey when a late one lands.
 */
export async function waitForImports(page: Page, baseUrl: string, channels = 3) {
  for (const [type, ended] of [
    ['catalog_import', /Succeeded|Partly failed/],
    ['order_import', /Succeeded/],
  ] as const) {
    let shown = '';
    await expect
      .poll(
        async () => {
          // A slow load on a busy machine is one more poll, not the end of the wait.
          const { syncs, count } = await finishedRuns(page, baseUrl, type, ended).catch(() => ({
            syncs: null,
            count: -1,
          }));
          shown = (await syncs?.innerText().catch(() => '')) ?? shown;
          return count;
        },
        { timeout: 90_000, interval: 1000 },
      )
      .toBe(channels)
      .catch((err) => {
        throw new Error(`${err}\n${shown}`);
      });
  }
}

/**
 * A new active merchant on `plan` with the three sandbox shops connected and imported: Square first (its stores
 * become the merchant's locations), then Shopify and BigCommerce, each shop cut to `products` products so the
 * imports are quick. Ends when the catalogs and the open orders are in (waitForImports).
 */
export async function merchantWithThreeShops(
  page: Page,
  {
    baseUrl,
    sandboxUrl,
    name,
    business,
    products,
  }: {
    baseUrl: string;
    sandboxUrl: string;
    /** Names the shops and the merchant's e-mail (with a unique tag). */
    name: string;
    business: string;
    products: number;
  },
): Promise<{ shops: Shops; tag: string; email: string }> {
  const control = sandboxControl(sandboxUrl);
  const tag = Date.now().toString(36);
  const shops: Shops = { shopify: `${name}-${tag}`, bigcommerce: `${name}${tag}`, square: '' };
  await control(`shopify/${shops.shopify}/reset`, { products });
  await control(`bigcommerce/${shops.bigcommerce}/reset`, { products });
  const email = `${name}-${tag}@harbor.test`;
  await newActiveMerchant(page, {
    baseUrl,
    sandboxUrl,
    plan: 'Growth',
    email,
    password: `${name} journey 2026`,
    business,
  });
  const square = await connectSquare(page, baseUrl, sandboxUrl, `${business} ${tag}`);
  shops.square = square.merchantId;
  if (!shops.square) throw new Error('the Square channel page named no merchant id');
  await control(`square/${shops.square}/reset`, { products });
  await importFromChannelPage(page, 'Square POS');
  await connectShopify(page, baseUrl, sandboxUrl, shops.shopify);
  await connectBigCommerce(page, baseUrl, sandboxUrl, shops.bigcommerce);
  await importCatalog(page, baseUrl, 'Shopify');
  await importCatalog(page, baseUrl, 'BigCommerce');
  await waitForImports(page, baseUrl);
  return { shops, tag, email };
}
