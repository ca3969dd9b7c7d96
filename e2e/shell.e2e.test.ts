import { MESSAGES } from '@switchyard/contracts';
import { describe, expect, inject, it } from 'vitest';
import { problemsOf, signIn, useBrowser } from './browser.ts';

const baseUrl = inject('baseUrl');
const outdatedUrl = inject('outdatedUrl');
const admin = inject('admin');

const colorScheme = (page: import('playwright-core').Page) =>
  page.locator('html').getAttribute('data-mantine-color-scheme');

describe('the app shell in Chromium', () => {
  const newPage = useBrowser();

  it('goes from / to the dashboard, also from its route id address, under the strict CSP', async () => {
    const page = await newPage();
    await signIn(page, baseUrl, admin.email, admin.password);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.goto(`${baseUrl}/`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard');

    await page.goto(`${baseUrl}/_app/dashboard/?timeframe=6m`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe('/dashboard');
    expect(url.searchParams.get('timeframe')).toBe('6m');
    expect(problemsOf(page)).toEqual([]);
  });

  it('shows the not-found text and a search box that leads somewhere real', async () => {
    const page = await newPage();
    await signIn(page, baseUrl, admin.email, admin.password);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const res = await page.goto(`${baseUrl}/no/such/page`);
    expect(res?.status()).toBe(200); // the client router decides what is missing
    await page.getByText(MESSAGES.notFound).waitFor();
    await page.getByRole('textbox', { name: 'Search' }).fill('dash');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard');
  });

  it('takes the colour mode from the theme parameter, remembers it, and ignores bad values', async () => {
    const page = await newPage();
    const signInButton = page.getByRole('button', { name: 'Sign in' });
    await page.goto(`${baseUrl}/login?theme=dark`);
    await expect.poll(() => colorScheme(page)).toBe('dark');

    await page.goto(`${baseUrl}/login`);
    await signInButton.waitFor();
    expect(await colorScheme(page)).toBe('dark');

    await page.goto(`${baseUrl}/login?theme=${encodeURIComponent('light<script>')}`);
    await signInButton.waitFor();
    expect(await colorScheme(page)).toBe('dark');

    await page.goto(`${baseUrl}/login?theme=light`);
    await expect.poll(() => colorScheme(page)).toBe('light');
    await page.reload();
    await signInButton.waitFor();
    expect(await colorScheme(page)).toBe('light');

    // The choice follows the merchant into the app.
    await page.goto(`${baseUrl}/login?theme=dark`);
    await signIn(page, baseUrl, admin.email, admin.password);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await colorScheme(page)).toBe('dark');
  });

  it('says the build is outdated, keeps saying it, and reloads on Update', async () => {
    const page = await newPage();
    await page.goto(`${outdatedUrl}/login`);
    const toast = page.locator('[data-sonner-toast]', { hasText: MESSAGES.outdatedBuild });
    await toast.waitFor();
    expect(await toast.locator('[data-close-button]').count()).toBe(0);
    await page.waitForTimeout(3500); // longer than an ordinary toast lives
    expect(await toast.isVisible()).toBe(true);

    await page.evaluate(() => {
      (window as unknown as { beforeReload: boolean }).beforeReload = true;
    });
    await Promise.all([page.waitForEvent('load'), toast.getByRole('button', { name: 'Update' }).click()]);
    expect(await page.evaluate(() => (window as unknown as { beforeReload?: boolean }).beforeReload)).toBeUndefined();
  });

  it('does not warn about the build on the server that serves it', async () => {
    const page = await newPage();
    const checked = page.waitForResponse((r) => r.url().includes('health.checkBuildId'));
    await page.goto(`${baseUrl}/login`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await checked).status()).toBe(200);
    await page.waitForTimeout(500);
    expect(await page.locator('[data-sonner-toast]').count()).toBe(0);
  });

  it('says when the build check cannot reach the server', async () => {
    const page = await newPage();
    await page.route('**/api/trpc/**', (route) => route.abort('connectionrefused'));
    await page.goto(`${baseUrl}/login`);
    // Three retries with backoff (1 s, 2 s, 4 s) come first.
    const toast = page.locator('[data-sonner-toast]', { hasText: MESSAGES.buildCheckFailed });
    await toast.waitFor({ timeout: 20_000 });
    expect(await toast.locator('[data-close-button]').count()).toBe(0);
  });

  it('shows the error page when a screen fails to load', async () => {
    const page = await newPage();
    await page.route('**/assets/terms-*.js', (route) => route.abort('failed'));
    await page.goto(`${baseUrl}/terms/`);
    await page.getByText(MESSAGES.unexpected).waitFor();
    const support = page.getByRole('link', { name: /support/i });
    expect(await support.getAttribute('href')).toMatch(/^mailto:/);
    expect(await page.getByText(/dynamically imported module|Failed to fetch/i).count()).toBeGreaterThan(0);
  });

  it('shows the terms of service', async () => {
    const page = await newPage();
    await page.goto(`${baseUrl}/terms/`);
    await page.getByRole('heading', { level: 1, name: 'Terms of Service' }).waitFor();
    expect(problemsOf(page)).toEqual([]);
  });
});
