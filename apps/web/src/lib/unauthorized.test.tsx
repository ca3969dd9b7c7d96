import { act, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../test/render-app.tsx';
import { ProcedureError } from '../test/trpc-stub.ts';
import { createUnauthorizedHandler, loginHref } from './unauthorized.ts';

describe('expired session', () => {
  it('shows the message for 10 seconds, then goes to login with the way back', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const goToLogin = vi.fn();
    await renderApp('/dashboard?timeframe=6m', {
      signedIn: true,
      goToLogin,
      handlers: {
        'health.checkBuildId': () => {
          throw new ProcedureError('UNAUTHORIZED', 'Your session has expired. Please sign in again.');
        },
      },
    });

    const message = await screen.findByText('Your session has expired. Please sign in again.');
    expect(message.closest('[data-sonner-toast]')).toHaveAttribute('data-type', 'error');

    await act(() => vi.advanceTimersByTimeAsync(9_000));
    expect(goToLogin).not.toHaveBeenCalled();
    expect(screen.getByText('Your session has expired. Please sign in again.')).toBeInTheDocument();

    await act(() => vi.advanceTimersByTimeAsync(1_100));
    expect(goToLogin).toHaveBeenCalledTimes(1);
    // The router writes the search defaults into the address, so they come back too.
    expect(goToLogin).toHaveBeenCalledWith('/login?redirect=%2Fdashboard%3Ftimeframe%3D6m');
  });

  it('does not retry an UNAUTHORIZED call', async () => {
    const { fetch } = await renderApp('/dashboard', {
      signedIn: true,
      goToLogin: () => {},
      handlers: {
        'health.checkBuildId': () => {
          throw new ProcedureError('UNAUTHORIZED', 'Signed out');
        },
      },
    });
    await screen.findByText('Signed out');
    const buildChecks = fetch.calls.flatMap((call) => call.paths).filter((path) => path === 'health.checkBuildId');
    expect(buildChecks).toHaveLength(1);
  });

  it('handles a REST 401 from a mutation the same way', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const goToLogin = vi.fn();
    const { services } = await renderApp('/terms/', { goToLogin });
    const restFailure = Object.assign(new Error('Request failed with status code 401'), {
      response: { status: 401, data: { code: 401, message: 'Token expired' } },
    });
    const mutation = services.queryClient
      .getMutationCache()
      .build(services.queryClient, { mutationFn: () => Promise.reject(restFailure) });
    await act(() => mutation.execute(undefined).catch(() => undefined));

    expect(await screen.findByText('Token expired')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(goToLogin).toHaveBeenCalledWith('/login?redirect=%2Fterms%2F');
  });

  it('ignores other errors', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const goToLogin = vi.fn();
    await renderApp('/dashboard', {
      signedIn: true,
      goToLogin,
      handlers: {
        'health.checkBuildId': () => {
          throw new ProcedureError('FORBIDDEN', 'Not allowed');
        },
      },
    });
    await act(() => vi.advanceTimersByTimeAsync(20_000));
    expect(goToLogin).not.toHaveBeenCalled();
    expect(screen.queryByText('Not allowed')).not.toBeInTheDocument();
  });

  it('does not send the sign-in page to sign-in again', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const goTo = vi.fn();
    const handle = createUnauthorizedHandler({ currentAddress: () => '/login?redirect=%2Forders', goTo });
    const restFailure = Object.assign(new Error('Request failed with status code 401'), {
      response: { status: 401, data: { code: 401, message: 'Token expired' } },
    });
    handle(restFailure);
    await act(() => vi.advanceTimersByTimeAsync(10_500));
    expect(goTo).not.toHaveBeenCalled();
  });

  it('builds the login address with an encoded redirect', () => {
    expect(loginHref('/orders?status=2&search=a b')).toBe('/login?redirect=%2Forders%3Fstatus%3D2%26search%3Da+b');
  });
});
