import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';

/** jsdom's Blob has no text(); FileReader reads it. */
function readBlob(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(blob);
  });
}

describe('settings: exports', { timeout: 30_000 }, () => {
  const saved: { name: string; href: string }[] = [];
  const blobs: Blob[] = [];

  beforeEach(() => {
    saved.length = 0;
    blobs.length = 0;
    // jsdom has no object URLs and does not download: record what would have been saved.
    Object.assign(URL, {
      createObjectURL: (blob: Blob) => {
        blobs.push(blob);
        return `blob:test/${blobs.length}`;
      },
      revokeObjectURL: () => {},
    });
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ name: this.download, href: this.href });
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it('is a settings page that downloads each export with the signed-in token', async () => {
    const { user, rest } = await renderApp('/settings/profile', {
      signedIn: true,
      rest: {
        'GET /api/frontend/export/catalogInventory': () => ({ body: 'sku,alu\nA-1,X\n' }),
        'GET /api/frontend/export/alu': () => ({ body: 'sku,alu,barcode,title\n' }),
      },
    });
    const nav = await screen.findByRole('navigation', { name: 'Settings pages' });
    await user.click(within(nav).getByRole('link', { name: 'Exports' }));
    expect(await screen.findByRole('heading', { name: 'Catalog and stock' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Download Catalog and stock (CSV)' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]?.name).toBe('catalogInventory.csv');
    expect(await readBlob(blobs[0] as Blob)).toContain('A-1,X');
    expect(await screen.findByText('Saved as catalogInventory.csv.')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Download SKU and ALU list (CSV)' }));
    await waitFor(() => expect(saved).toHaveLength(2));
    expect(rest.calls.map((c) => c.url)).toEqual(['/api/frontend/export/catalogInventory', '/api/frontend/export/alu']);
    for (const call of rest.calls) expect(call.authorization).toMatch(/^Bearer /);
    expect(rest.calls[0]?.authorization).toBe(`Bearer ${window.localStorage.getItem('token')}`);
  });

  it('keeps the button busy while the file comes, and shows why a download failed', async () => {
    let release: (() => void) | undefined;
    const { user } = await renderApp('/settings/exports', {
      signedIn: true,
      rest: {
        'GET /api/frontend/export/catalogInventory': () =>
          new Promise((resolve) => {
            release = () => resolve({ status: 503, body: { code: 503, message: 'The export service is resting' } });
          }),
      },
    });
    const button = await screen.findByRole('button', { name: 'Download Catalog and stock (CSV)' });
    await user.click(button);
    await waitFor(() => expect(button).toHaveAttribute('data-loading', 'true'));
    expect(screen.getByText('Preparing the file…')).toBeInTheDocument();
    release?.();
    expect(await screen.findAllByText('The export service is resting')).not.toHaveLength(0);
    expect(button).not.toHaveAttribute('data-loading');
    expect(saved).toHaveLength(0);
  });
});
