import { AUTH_MESSAGES, MESSAGES } from '@switchyard/contracts';
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { problemsOf, signIn as signInAt, useBrowser } from './browser.ts';

const baseUrl = inject('baseUrl');

/** Opens the development mailbox, finds the newest message with this subject to this address, follows its link. */
async function followMailLink(page: Page, to: string, subject: string) {
  await page.goto(`${baseUrl}/dev/mailbox`);
  const item = page.locator('.mantine-Accordion-item', { hasText: to }).filter({ hasText: subject }).first();
  await item.getByRole('button').first().click();
  const link = item.getByRole('link').first();
  const href = await link.getAttribute('href');
  expect(href).toMatch(new RegExp(`^${baseUrl}/`));
  await link.click();
  // Where the link led, so that a failure after it says whether the mail's link or the page went wrong.
  await page.waitForURL((url) => url.href === href || url.pathname !== '/dev/mailbox', { timeout: 10_000 });
  if (new URL(page.url()).pathname !== new URL(href as string).pathname)
    console.warn(`[e2e] the mail's link was ${href}, the page is at ${page.url()}`);
}

const signIn = (page: Page, email: string, password: string) => signInAt(page, baseUrl, email, password);

describe('a new merchant in Chromium', () => {
  const newPage = useBrowser();

  // One retry (with a new address): in two full CI runs this journey failed once each, at different steps, after the
  // other journeys had run on the shared server; alone it passed 3 of 3. One failure was a race of the test (the
  // sign-in page's e-mail field filled during the link's navigation, fixed); the other opened the confirmation mail's
  // link and landed on /confirm (the not-found page): its code started with `_`, which the router takes for a pathless
  // segment (one code in 64; codes no longer start so, auth/codes.ts). The retry stays until CI runs confirm it.
  it('registers, confirms from the mailbox, signs in, is sent by the status gate, signs out, and resets a forgotten password', {
    retry: 1,
  }, async () => {
    const page = await newPage();
    const email = `owner-${Date.now()}@harbor.test`;
    const password = 'harbour lights 2026';

    // A signed-out visitor asking for the app is sent to sign in, with the way back.
    await page.goto(`${baseUrl}/dashboard?timeframe=6m`);
    await page.waitForURL(/\/login/);
    expect(new URL(page.url()).searchParams.get('redirect')).toContain('/dashboard');

    await page.goto(`${baseUrl}/register`);
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByLabel('Business name').fill('Harbor Outfitters');
    await page.getByLabel('Phone').fill('+1 555 0199');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel(/^Password/).fill('short');
    await page.getByLabel('Repeat password').fill('different');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Should be at least 10 characters long').waitFor();
    await page.getByText('Passwords do not match').waitFor();
    await page.getByText('Please check and agree to the Terms & Conditions').waitFor();

    await page.getByLabel(/^Password/).fill(password);
    await page.getByLabel('Repeat password').fill(password);
    await page.getByRole('checkbox').click();
    expect(await page.getByRole('checkbox').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/confirmation/);
    await page.getByText(email).first().waitFor();

    // Signed in before confirming: the gate keeps the merchant on the confirmation page; sign out from there.
    await signIn(page, email, password);
    await page.waitForURL(/\/confirmation/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

    await followMailLink(page, email, 'Confirm your Switchyard account');
    await page.getByText(MESSAGES.accountConfirmed).waitFor();
    await page.waitForURL(/\/login/);

    // Confirmed, no plan yet: the gate sends the merchant to choose one.
    await signIn(page, email, password);
    await page.waitForURL(/\/subscription\/plans/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeTruthy();

    // A wrong password says so, without leaving the page.
    await page.evaluate(() => localStorage.clear());
    await signIn(page, email, 'not my password at all');
    await page.getByText(AUTH_MESSAGES.wrongCredentials).waitFor();

    // Forgot it: reset by mail, then the new password signs in and the old one does not.
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    // The sign-in page has an "E-mail address" field too: fill the reset page's, once it is the one shown.
    await page.waitForURL(/\/reset\/?$/);
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Send the reset link' }).click();
    // The mail exists once the request is answered; leaving the page earlier could cut the request off.
    await page.getByText('Check your inbox').waitFor();
    await followMailLink(page, email, 'Reset your Switchyard password');
    await page.getByLabel(/^New password/).fill('a brand new password');
    await page.getByLabel(/^Repeat the new password/).fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(/\/login/);

    await signIn(page, email, password);
    await page.getByText(AUTH_MESSAGES.wrongCredentials).waitFor();
    await signIn(page, email, 'a brand new password');
    await page.waitForURL(/\/subscription\/plans/);
    expect(problemsOf(page)).toEqual([]);
  });

  it('says a used or unknown reset link is invalid and goes to sign in', async () => {
    const page = await newPage();
    await page.goto(`${baseUrl}/reset/not-a-real-code`);
    await page.getByText(MESSAGES.invalidResetCode).waitFor();
    await page.waitForURL(/\/login/);
  });
});
