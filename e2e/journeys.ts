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
