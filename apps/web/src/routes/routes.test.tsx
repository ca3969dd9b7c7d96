import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { RouteErrorPage } from '../components/error-page.tsx';
import { FullPageLoader } from '../components/full-page-loader.tsx';
import { NotFoundPage } from '../components/not-found-page.tsx';
import { renderApp } from '../test/render-app.tsx';

describe('routes', () => {
  it('sends the home address straight to the dashboard', async () => {
    const { router } = await renderApp('/', { signedIn: true });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('takes the dashboard period from the address: a bad value falls back to its default, a good one stays', async () => {
    const { router } = await renderApp('/dashboard?timeframe=5y&granularity=week', { signedIn: true });
    await screen.findByRole('region', { name: 'Get started' });
    // The default is left out of the address.
    expect(router.state.location.search).toEqual({ granularity: 'week' });
  });

  it('reaches the dashboard through its route id path too', async () => {
    const { router } = await renderApp('/dashboard/', { signedIn: true });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.matches.map((match) => match.routeId)).toContain('/_app/dashboard/');
  });

  it('sends /_app/dashboard/ to the dashboard with its search params', async () => {
    const { router } = await renderApp('/_app/dashboard/?timeframe=1y&granularity=week', { signedIn: true });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(router.state.location.search).toEqual({ timeframe: '1y', granularity: 'week' });
  });

  it('shows the terms of service with their sections', async () => {
    await renderApp('/terms/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Terms of Service' })).toBeInTheDocument();
    for (const title of ['The service', 'Subscription, billing and cancellation', 'Liability', 'Contact']) {
      expect(screen.getByRole('heading', { level: 2, name: new RegExp(title) })).toBeInTheDocument();
    }
    expect(screen.getByText(/Shopify, BigCommerce, Square/)).toBeInTheDocument();
  });

  it('sets up preloading on intent, a short preload cache and the error pages', async () => {
    const { router } = await renderApp('/dashboard', { signedIn: true });
    expect(router.options.defaultPreload).toBe('intent');
    expect(router.options.defaultPreloadStaleTime).toBe(1000);
    expect(router.options.defaultPreloadGcTime).toBe(1000);
    expect(router.options.defaultErrorComponent).toBe(RouteErrorPage);
    expect(router.options.defaultNotFoundComponent).toBe(NotFoundPage);
  });

  it('shows a full-page loading indicator while a route loads', async () => {
    const { router } = await renderApp('/dashboard', { signedIn: true });
    expect(router.options.defaultPendingComponent).toBe(FullPageLoader);
    const { unmount } = render(
      <MantineProvider env="test">
        <FullPageLoader />
      </MantineProvider>,
    );
    expect(screen.getByRole('status', { name: 'Loading' })).toBeInTheDocument();
    unmount();
  });
});
