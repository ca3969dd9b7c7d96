import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { problemsOf, useBrowser } from './browser.ts';
import { newActiveMerchant } from './journeys.ts';

const baseUrl = inject('baseUrl');
const sandboxUrl = inject('sandboxUrl');

/** The channel list row of the provider (by its Provider cell). */
const rowOf = (page: Page, provider: string) =>
  page
    .getByRole('table', { name: 'Channels' })
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: provider, exact: true }) });

describe('connecting channels in Chromium', () => {
  const newPage = useBrowser();

  it('connects the sandbox Shopify, BigCommerce and Square through their consent pages and maps a location', async () => {
    expect(sandboxUrl, 'the server starts an in-process sandbox when no provider keys are set').toMatch(/^http/);
    const page = await newPage();
    await newActiveMerchant(page, {
      baseUrl,
      sandboxUrl,
      plan: 'Growth',
      email: `channels-${Date.now()}@harbor.test`,
      password: 'three channels 2026',
      business: 'Harbor Outfitters',
    });

    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Channels' }).click();
    await page.getByText('No channels yet').waitFor();

    // Shopify: a pending channel, the shop's address, the simulator's install page, back to the outcome.
    await page.getByRole('button', { name: 'Connect Shopify' }).click();
    await page.waitForURL(/\/channels\/create\//);
    await page.getByLabel(/Shop address/).fill('demo.myshopify.com');
    await page.getByRole('button', { name: 'Continue to Shopify' }).click();
    await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
    await page.getByRole('button', { name: 'Install app' }).click();
    await page.waitForURL(/\/channels\/shopify\/connected/);
    await page.getByRole('heading', { name: 'Shopify is connected' }).waitFor();
    expect(await page.getByRole('link', { name: 'Map locations' }).getAttribute('href')).toMatch(
      /^\/channels\/[^/]+\/channel-settings$/,
    );

    // BigCommerce, by store hash.
    await page.getByRole('link', { name: 'Go to channels' }).click();
    await page.getByRole('button', { name: 'Connect BigCommerce' }).click();
    await page.waitForURL(/\/channels\/create\//);
    await page.getByLabel(/Store hash/).fill('demo');
    await page.getByRole('button', { name: 'Continue to BigCommerce' }).click();
    await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
    await page.getByRole('button', { name: 'Install' }).click();
    await page.waitForURL(/\/channels\/bigcommerce\/connected/);
    await page.getByRole('heading', { name: 'BigCommerce is connected' }).waitFor();

    // Square POS: the misc route asks for the authorization URL and goes there; Allow comes back to its settings.
    await page.getByRole('link', { name: 'Connect Square POS' }).click();
    await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/channels\/[^/]+\/channel-settings/);
    await page.getByText(/is connected\. Map its locations next\./).waitFor();

    // Three connected channels.
    await page.goto(`${baseUrl}/channels`);
    for (const provider of ['Shopify', 'BigCommerce', 'Square POS']) {
      await rowOf(page, provider).getByText('Connected').waitFor();
    }
    expect(await page.getByRole('table', { name: 'Channels' }).getByRole('row').count()).toBe(4);

    // Map a Shopify location to a Square store; it is still there after a reload.
    await rowOf(page, 'Shopify')
      .getByRole('link', { name: /^Settings of / })
      .click();
    await page.waitForURL(/\/channel-settings$/);
    const mapping = page.getByRole('table', { name: 'Location mapping' });
    const store = mapping.getByRole('combobox', { name: /^Square store for / }).first();
    const location = ((await store.getAttribute('aria-label')) ?? '').replace('Square store for ', '');
    await store.click();
    const option = page.getByRole('option').first();
    const storeName = (await option.textContent())?.trim() ?? '';
    expect(storeName).not.toBe('');
    await option.click();
    await page.getByRole('region', { name: 'Unsaved changes' }).getByRole('button', { name: 'Save' }).click();
    await page.getByText('Channel settings saved.').waitFor();

    await page.reload();
    const saved = page
      .getByRole('table', { name: 'Location mapping' })
      .getByRole('combobox', { name: `Square store for ${location}` });
    await expect.poll(() => saved.inputValue()).toBe(storeName);
    expect(problemsOf(page)).toEqual([]);
  });
});
