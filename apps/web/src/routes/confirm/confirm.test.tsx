import { MESSAGES } from '@switchyard/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render-app.tsx';
import { ProcedureError } from '../../test/trpc-stub.ts';

const INVALID = 'This confirmation link is invalid or has expired.';

describe('confirming a registration', () => {
  it('checks the code, confirms it, says so and goes to sign-in', async () => {
    const confirmed: unknown[] = [];
    const { router, fetch } = await renderApp('/confirm/abc123', {
      handlers: {
        'auth.checkConfirmationCode': () => ({ valid: true }),
        'auth.confirmRegistration': (input) => {
          confirmed.push(input);
          return { confirmed: true };
        },
      },
    });
    const toast = await screen.findByText(MESSAGES.accountConfirmed);
    expect(toast.closest('[data-sonner-toast]')).toHaveAttribute('data-type', 'success');
    expect(router.state.location.pathname).toBe('/login');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(confirmed).toEqual([{ code: 'abc123' }]);
    const check = fetch.calls.find((call) => call.paths.includes('auth.checkConfirmationCode'));
    expect(check?.inputs[check.paths.indexOf('auth.checkConfirmationCode')]).toEqual({ code: 'abc123' });
    const confirm = fetch.calls.find((call) => call.paths.includes('auth.confirmRegistration'));
    expect(confirm?.method).toBe('POST');
  });

  it('does not confirm a code the check refuses, and shows an error state with ways forward', async () => {
    const confirmed: unknown[] = [];
    const { router } = await renderApp('/confirm/old', {
      handlers: {
        'auth.checkConfirmationCode': () => ({ valid: false }),
        'auth.confirmRegistration': (input) => confirmed.push(input),
      },
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText(INVALID)).toBeInTheDocument();
    expect(confirmed).toEqual([]);
    expect(router.state.location.pathname).toBe('/confirm/old');
    expect(screen.getByRole('link', { name: 'Send a new e-mail' })).toHaveAttribute('href', '/confirmation');
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
    expect(screen.queryByText(MESSAGES.accountConfirmed)).not.toBeInTheDocument();
  });

  it('shows the server message when confirming fails', async () => {
    await renderApp('/confirm/used', {
      handlers: {
        'auth.checkConfirmationCode': () => ({ valid: true }),
        'auth.confirmRegistration': () => {
          throw new ProcedureError('BAD_REQUEST', 'This code was already used.');
        },
      },
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('This code was already used.')).toBeInTheDocument();
  });
});
