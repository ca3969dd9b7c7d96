import { MESSAGES } from '@switchyard/contracts';
import type { Page } from 'playwright-core';
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
  await item.getByRole('link').first().click();
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

/** What the control API says a simulated shop holds: its locations and each SKU's quantity per location. */
export interface ShopSnapshot {
  locations: { id: string; name: string }[];
  stock: Record<string, Record<string, number>>;
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
