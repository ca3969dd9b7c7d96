import { MESSAGES } from '@switchyard/contracts';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../lib/query-client.ts';
import { createTrpcClient } from '../lib/trpc.ts';
import { ProcedureError, type ProcedureHandler, trpcFetch } from '../test/trpc-stub.ts';
import { AppProviders } from './app-providers.tsx';
import { BuildCheck } from './build-check.tsx';

function renderBuildCheck(checkBuildId: ProcedureHandler) {
  const fetch = trpcFetch({ 'health.checkBuildId': checkBuildId });
  const onUpdate = vi.fn();
  render(
    <AppProviders queryClient={createQueryClient()} trpcClient={createTrpcClient({ fetch })} env="test">
      <BuildCheck buildId="build-42" onUpdate={onUpdate} />
    </AppProviders>,
  );
  return { fetch, onUpdate };
}

/** The sonner list item holding a toast's text. */
async function findToast(text: string): Promise<HTMLElement> {
  const title = await screen.findByText(text);
  const toast = title.closest<HTMLElement>('[data-sonner-toast]');
  if (!toast) throw new Error(`"${text}" is not inside a toast`);
  return toast;
}

describe('build check', () => {
  it('asks the server about this build at start-up', async () => {
    const { fetch } = renderBuildCheck(() => ({ match: true }));
    await vi.waitFor(() => expect(fetch.calls).toHaveLength(1));
    expect(fetch.calls[0]?.paths).toEqual(['health.checkBuildId']);
    expect(fetch.calls[0]?.inputs).toEqual([{ buildId: 'build-42' }]);
    expect(screen.queryByText(MESSAGES.outdatedBuild)).not.toBeInTheDocument();
  });

  it('on a mismatch shows a notice with Update that cannot be dismissed', async () => {
    const { onUpdate } = renderBuildCheck(() => ({ match: false }));
    const toast = await findToast(MESSAGES.outdatedBuild);

    expect(toast).toHaveAttribute('data-type', 'info');
    expect(toast).toHaveAttribute('data-dismissible', 'false');
    expect(within(toast).queryByRole('button', { name: 'Close toast' })).not.toBeInTheDocument();

    await userEvent.click(within(toast).getByRole('button', { name: 'Update' }));
    expect(onUpdate).toHaveBeenCalledTimes(1);
    // Still there until the reload replaces the page.
    expect(screen.getByText(MESSAGES.outdatedBuild)).toBeInTheDocument();
  });

  it('checks again every 10 minutes without stacking notices', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { fetch } = renderBuildCheck(() => ({ match: false }));
    await findToast(MESSAGES.outdatedBuild);
    expect(fetch.calls).toHaveLength(1);

    await act(() => vi.advanceTimersByTimeAsync(10 * 60 * 1000));
    expect(fetch.calls).toHaveLength(2);
    await act(() => vi.advanceTimersByTimeAsync(10 * 60 * 1000));
    expect(fetch.calls).toHaveLength(3);
    expect(screen.getAllByText(MESSAGES.outdatedBuild)).toHaveLength(1);
  });

  it('when the check fails shows a failure notice that cannot be dismissed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { fetch } = renderBuildCheck(() => {
      throw new ProcedureError('INTERNAL_SERVER_ERROR', 'Database unavailable');
    });
    // The first try and three retries (1 s, 2 s, 4 s apart) before it counts as failed.
    await act(() => vi.advanceTimersByTimeAsync(7_000));
    const toast = await findToast(MESSAGES.buildCheckFailed);

    expect(fetch.calls).toHaveLength(4);
    expect(toast).toHaveAttribute('data-type', 'error');
    expect(toast).toHaveAttribute('data-dismissible', 'false');
    expect(within(toast).queryByRole('button', { name: 'Close toast' })).not.toBeInTheDocument();
    expect(screen.queryByText(MESSAGES.outdatedBuild)).not.toBeInTheDocument();
  });
});
