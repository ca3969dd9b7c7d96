import { MantineProvider } from '@mantine/core';
import { MESSAGES } from '@switchyard/contracts';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { allowConsole } from '../test/console.ts';
import { ErrorPage, RouteErrorPage } from './error-page.tsx';

describe('error page', () => {
  it('shows the generic message, the error text and how to reach support', async () => {
    const reset = vi.fn();
    render(
      <MantineProvider env="test">
        <ErrorPage error={new Error('Cannot read properties of undefined')} reset={reset} />
      </MantineProvider>,
    );
    expect(
      screen.getByText('Oops! An unexpected error happened. Please try refreshing your page.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: MESSAGES.unexpected })).toBeInTheDocument();
    expect(screen.getByText('Cannot read properties of undefined')).toBeInTheDocument();

    const contact = screen.getByRole('link', { name: 'support@switchyard.app' });
    const href = new URL(contact.getAttribute('href') ?? '');
    expect(href.protocol).toBe('mailto:');
    expect(href.pathname).toBe('support@switchyard.app');
    expect(href.searchParams.get('body')).toContain('Cannot read properties of undefined');

    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(reset).toHaveBeenCalledTimes(1);
  });

  it('shows the server message of a failed call', () => {
    const failure = Object.assign(new Error('Request failed with status code 500'), {
      response: { status: 500, data: { code: 500, message: 'Catalog service is down' } },
    });
    render(
      <MantineProvider env="test">
        <ErrorPage error={failure} reset={() => {}} />
      </MantineProvider>,
    );
    expect(screen.getByText('Catalog service is down')).toBeInTheDocument();
  });
});

function renderRoute(route: { loader?: () => unknown; component: () => ReactNode }) {
  const rootRoute = createRootRoute({ component: Outlet });
  const pageRoute = createRoute({ getParentRoute: () => rootRoute, path: '/orders', ...route });
  const router = createRouter({
    routeTree: rootRoute.addChildren([pageRoute]),
    history: createMemoryHistory({ initialEntries: ['/orders'] }),
    defaultErrorComponent: RouteErrorPage,
  });
  // The router warns about every failed match in development, and React reports what a boundary caught;
  // the failure is the point of these tests.
  allowConsole('warn', /Error in route match: \/orders/);
  render(
    <MantineProvider env="test">
      <RouterProvider router={router} />
    </MantineProvider>,
    { onCaughtError: () => {} },
  );
}

describe('route error page', () => {
  it('shows "Something went wrong!" when a page throws while rendering', async () => {
    renderRoute({
      component: () => {
        throw new Error('orders.map is not a function');
      },
    });
    expect(await screen.findByText(MESSAGES.renderError)).toBeInTheDocument();
    expect(screen.queryByText(MESSAGES.unexpected)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show Error' }));
    expect(screen.getByText('orders.map is not a function')).toBeInTheDocument();
  });

  it("shows the generic page when a screen's code cannot be downloaded", async () => {
    renderRoute({
      component: () => {
        throw new TypeError('Failed to fetch dynamically imported module: /assets/orders-1a2b3c.js');
      },
    });
    expect(await screen.findByText(MESSAGES.unexpected)).toBeInTheDocument();
    expect(screen.queryByText(MESSAGES.renderError)).not.toBeInTheDocument();
  });

  it('shows the generic page when a route fails to load, and Try again reloads it', async () => {
    let attempts = 0;
    renderRoute({
      loader: () => {
        attempts += 1;
        if (attempts === 1) throw new Error('Orders service timed out');
        return 'loaded';
      },
      component: () => <p>Orders loaded</p>,
    });

    expect(await screen.findByText(MESSAGES.unexpected)).toBeInTheDocument();
    expect(screen.getByText('Orders service timed out')).toBeInTheDocument();
    expect(screen.queryByText(MESSAGES.renderError)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Orders loaded')).toBeInTheDocument();
    expect(attempts).toBe(2);
  });
});
