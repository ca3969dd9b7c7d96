import type { Locator, Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { problemsOf, useBrowser } from './browser.ts';
import { payWithCard, registerConfirmAndSignIn } from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');

interface SandboxStripe {
  customers: { id: string; email: string | null }[];
  subscriptions: { id: string; customer: string; status: string }[];
}

/** The merchant's subscription at the simulator, found through its customer's e-mail address. */
async function subscriptionOf(email: string): Promise<SandboxStripe['subscriptions'][number]> {
  const response = await fetch(`${sandboxUrl}/_control/stripe`);
  expect(response.ok).toBe(true);
  const stripe = (await response.json()) as SandboxStripe;
  const customer = stripe.customers.find((entry) => entry.email === email);
  const subscription = stripe.subscriptions.find((entry) => entry.customer === customer?.id);
  if (!subscription) throw new Error(`no subscription at the simulator for ${email}`);
  return subscription;
}

/**
 * Reloads until the locator shows: the account changes when the provider's webhook has been handled (a job),
 * which the page does not wait for.
 */
async function reloadUntil(page: Page, find: (page: Page) => Locator, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await find(page).first().waitFor({ timeout: 3000 });
      return;
    } catch {
      if (Date.now() > deadline) {
        await page.screenshot({ path: `/tmp/billing-e2e-${Date.now()}.png`, fullPage: true });
        throw new Error(`${what} did not appear within ${timeoutMs} ms`);
      }
      await page.reload();
    }
  }
}

describe('billing in Chromium', () => {
  const newPage = useBrowser();

  it('a new merchant is declined, pays, gets into the app, sees the invoice, and is warned after a failed renewal', async () => {
    expect(sandboxUrl, 'the server starts an in-process sandbox when no provider keys are set').toMatch(/^http/);
    const page = await newPage();
    const email = `billing-${Date.now()}@engines.test`;
    const password = 'difference engine 1842';
    await registerConfirmAndSignIn(page, baseUrl, { email, password });

    // Confirmed, no plan: the gate sends the merchant to choose one.
    await page.waitForURL(/\/subscription\/plans/);
    const starter = page.getByRole('article', { name: 'Starter' });
    await starter.getByRole('button', { name: /^Choose Starter/ }).click();

    // The simulator's hosted payment page, on its own origin.
    await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
    await page.getByText('Subscribe to').first().waitFor();
    await payWithCard(page, '4000 0000 0000 0002');
    await page.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();

    // Back to the app: nothing was charged, still on the plans (requires_payment_method). A decline at
    // Checkout creates nothing at the provider, so the reason was said on the payment page itself.
    await page.getByRole('link', { name: '← Back' }).click();
    await page.waitForURL(/\/subscription\/plans\?checkout=canceled/);
    const notice = page.getByRole('alert').filter({ hasText: 'Payment not completed' });
    await notice.getByText('nothing was charged').waitFor();
    await page.goto(`${baseUrl}/dashboard`);
    await page.waitForURL(/\/subscription\/plans/);

    // Paying with a good card comes back to the success page, then into the app.
    await page
      .getByRole('article', { name: 'Starter' })
      .getByRole('button', { name: /^Choose Starter/ })
      .click();
    await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
    await payWithCard(page, '4242 4242 4242 4242');
    await page.waitForURL(/\/subscription\/success\?session_id=/);
    await page.getByRole('heading', { name: "You're all set" }).waitFor();
    await page.waitForURL(/\/dashboard/);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();

    // Settings → Account: the plan and its paid invoice.
    await page.goto(`${baseUrl}/settings/account`);
    const plan = page.getByRole('region', { name: 'Plan' });
    await plan.getByText('Starter').first().waitFor();
    await plan.getByText(/^Renews on /).waitFor();
    await reloadUntil(
      page,
      (p) => p.getByRole('table', { name: 'Invoices' }).getByRole('row').filter({ hasText: 'Paid' }),
      'a paid invoice',
    );
    expect(await page.getByRole('region', { name: 'Payment method' }).textContent()).toContain('ending in 4242');

    // A failed renewal at the provider: the account is past due and every screen says so.
    const subscription = await subscriptionOf(email);
    const renewal = await fetch(`${sandboxUrl}/_control/stripe/subscriptions/${subscription.id}/renew`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'failed' }),
    });
    expect(renewal.ok).toBe(true);
    await page.goto(`${baseUrl}/dashboard`);
    await reloadUntil(page, (p) => p.getByRole('region', { name: 'Your payment failed' }), 'the past-due banner');
    const banner = page.getByRole('region', { name: 'Your payment failed' });
    await banner.getByText(/Update your payment method by /).waitFor();
    await banner.getByRole('button', { name: 'Update payment method' }).waitFor();
    expect(problemsOf(page)).toEqual([]);
  });

  it('a merchant paying by bank debit waits for the bank on a page that moves on by itself', async () => {
    const page = await newPage();
    const email = `ach-${Date.now()}@engines.test`;
    await registerConfirmAndSignIn(page, baseUrl, { email, password: 'analytical engine 1843' });
    await page.waitForURL(/\/subscription\/plans/);
    await page.getByText('Yearly', { exact: true }).click();
    await page.getByRole('article', { name: 'Growth' }).getByRole('button', { name: 'Choose Growth, yearly' }).click();
    await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
    await page.getByLabel('US bank account (ACH debit)').check();
    await page.getByLabel('Account holder name').fill('Ada Lovelace');
    await page.getByLabel('Routing number').fill('110000000');
    await page.getByLabel('Account number').fill('000123456789');
    await page.getByRole('button', { name: 'Subscribe' }).click();

    // Back in the app, the payment has not settled: the waiting page, which asks again by itself.
    await page.waitForURL(/\/subscription\/awaiting-payment/);
    await page.getByRole('heading', { name: 'Waiting for your bank' }).waitFor();
    // The simulator settles the debit a few seconds later; no reload here.
    await page.getByRole('heading', { name: "You're all set" }).waitFor({ timeout: 45_000 });
    await page.waitForURL(/\/dashboard/);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    // The plan and period chosen on the plans page are the subscription's.
    await page.goto(`${baseUrl}/settings/account`);
    const plan = page.getByRole('region', { name: 'Plan' });
    await plan.getByText('Growth').first().waitFor();
    await plan.getByText(/ \/ year$/).waitFor();
    expect(problemsOf(page)).toEqual([]);
  });

  it('shows a signed-out visitor the plans with a way to sign up', async () => {
    const page = await newPage();
    await page.goto(`${baseUrl}/subscription/plans`);
    const starter = page.getByRole('article', { name: 'Starter' });
    await starter.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(/\/register/);
    expect(problemsOf(page)).toEqual([]);
  });
});
