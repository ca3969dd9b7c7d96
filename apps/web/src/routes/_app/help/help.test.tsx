import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';

describe('/help', { timeout: 30_000 }, () => {
  it('answers a search for "buffer" with the buffer articles, and keeps the search in the address', async () => {
    const { user, router } = await renderApp('/help', { signedIn: true });
    expect(await screen.findByRole('heading', { name: 'Help', level: 1 })).toBeInTheDocument();
    expect(screen.getAllByRole('article').length).toBeGreaterThan(10);

    await user.type(screen.getByRole('searchbox', { name: 'Search help' }), 'buffer{Enter}');
    await waitFor(() => expect(router.state.location.search).toEqual({ q: 'buffer' }));
    const titles = screen.getAllByRole('article').map((a) => within(a).getByRole('heading', { level: 2 }).textContent);
    expect(titles[0]).toBe('Buffers (dynamic buffers)');
    expect(titles).toContain('How "available to sell" is computed');
    expect(titles).not.toContain('Contacting support');
    expect(screen.getByText(/articles match “buffer”/)).toBeInTheDocument();
  });

  it('tolerates a typo, says when nothing matches, and "/" focuses the search', async () => {
    const { user } = await renderApp('/help?q=safty%20stok', { signedIn: true });
    const titles = (await screen.findAllByRole('article')).map(
      (a) => within(a).getByRole('heading', { level: 2 }).textContent,
    );
    expect(titles[0]).toBe('Safety stock');

    const box = screen.getByRole('searchbox', { name: 'Search help' });
    box.blur();
    await user.keyboard('/');
    expect(box).toHaveFocus();
    await user.clear(box);
    await user.type(box, 'zzqxv{Enter}');
    expect(await screen.findByText('Nothing found')).toBeInTheDocument();
  });

  it('explains statuses from the contracts and links the API reference and support', async () => {
    await renderApp('/help', { signedIn: true });
    const orders = await screen.findByRole('article', { name: 'What each order status means' });
    expect(within(orders).getByText('Ready for pickup', { exact: false })).toBeInTheDocument();
    const api = screen.getByRole('article', { name: 'API reference' });
    expect(within(api).getByRole('link', { name: 'API reference' })).toHaveAttribute('href', '/api/docs');
    const support = screen.getByRole('article', { name: 'Contacting support' });
    expect(within(support).getByRole('link', { name: 'e-mail us' })).toHaveAttribute(
      'href',
      'mailto:support@switchyard.app',
    );
  });
});
