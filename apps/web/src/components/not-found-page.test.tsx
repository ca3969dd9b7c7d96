import { MESSAGES } from '@switchyard/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../test/render-app.tsx';

describe('not-found page', () => {
  it('shows the 404 text and a search box for an unknown address', async () => {
    await renderApp('/no/such/page');
    expect(
      await screen.findByText("404 Oops! You're lost. The page you are looking for was not found."),
    ).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: MESSAGES.notFound })).toBeInTheDocument();
    expect(within(screen.getByRole('search')).getByRole('textbox', { name: 'Search' })).toBeInTheDocument();
  });

  it('lists the pages that match the search', async () => {
    const { user } = await renderApp('/missing');
    const results = () => screen.getByRole('region', { name: 'Matching pages' });
    await user.type(await screen.findByRole('textbox', { name: 'Search' }), 'terms');
    expect(within(results()).getByRole('link', { name: 'Terms of Service' })).toBeInTheDocument();
    expect(within(results()).queryByRole('link', { name: 'Dashboard' })).not.toBeInTheDocument();

    await user.clear(screen.getByRole('textbox', { name: 'Search' }));
    await user.type(screen.getByRole('textbox', { name: 'Search' }), 'nothing like this');
    expect(within(results()).queryAllByRole('link')).toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Go' })).toBeDisabled();
  });

  it('goes to the first match on Enter', async () => {
    const { user, router } = await renderApp('/missing', { signedIn: true });
    await user.type(await screen.findByRole('textbox', { name: 'Search' }), 'metrics{Enter}');
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});
