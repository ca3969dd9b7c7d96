import { MantineProvider } from '@mantine/core';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { notify, showToast } from '../lib/toast.ts';
import { colorSchemeManager } from '../lib/ui-settings.ts';
import { AppToaster } from './app-toaster.tsx';

function renderToaster() {
  return render(
    <MantineProvider colorSchemeManager={colorSchemeManager} defaultColorScheme="light" env="test">
      <AppToaster />
    </MantineProvider>,
  );
}

const toastOf = (text: string) => screen.getByText(text).closest<HTMLElement>('[data-sonner-toast]');

describe('toaster', () => {
  // Sonner removes a closed toast 200 ms later on a timer that unmounting does not clear: one closing at the end of
  // the last test fired after the file's page was gone ("window is not defined", once in CI). Each test's toasts
  // are closed, and their timers run out, while the page is still here.
  afterEach(async () => {
    act(() => {
      toast.dismiss();
    });
    await act(() => new Promise((resolve) => setTimeout(resolve, 300)));
  });

  it('shows toasts bottom right, each with a close button', async () => {
    renderToaster();
    act(() => {
      notify.success('Saved');
    });
    const toast = await screen.findByText('Saved');
    expect(toast.closest('[data-sonner-toaster]')).toHaveAttribute('data-y-position', 'bottom');
    expect(toast.closest('[data-sonner-toaster]')).toHaveAttribute('data-x-position', 'right');
    const item = toastOf('Saved');
    expect(item).toHaveAttribute('data-type', 'success');
    await userEvent.click(within(item as HTMLElement).getByRole('button', { name: 'Close toast' }));
    await vi.waitFor(() => expect(screen.queryByText('Saved')).not.toBeInTheDocument());
  });

  it('closes a toast after 3 seconds by default', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderToaster();
    act(() => {
      notify.info('Sync started');
    });
    expect(await screen.findByText('Sync started')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(2_500));
    expect(screen.getByText('Sync started')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    await vi.waitFor(() => expect(screen.queryByText('Sync started')).not.toBeInTheDocument());
  });

  it('supports every type, a description and an action', async () => {
    renderToaster();
    const onClick = vi.fn();
    act(() => {
      for (const type of ['success', 'info', 'warning', 'error', 'loading'] as const) {
        showToast({ type, title: `A ${type} toast` });
      }
      showToast({
        type: 'warning',
        title: 'Stock is low',
        description: '3 left',
        action: { label: 'Reorder', onClick },
      });
    });
    await screen.findByText('Stock is low');
    for (const type of ['success', 'info', 'warning', 'error', 'loading']) {
      expect(toastOf(`A ${type} toast`)).toHaveAttribute('data-type', type);
    }
    expect(screen.getByText('3 left')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Reorder' }));
    expect(onClick).toHaveBeenCalledTimes(1);
  });

  it('shows up to 9 toasts at once', async () => {
    renderToaster();
    act(() => {
      for (let index = 1; index <= 11; index += 1) notify.info(`Toast ${index}`);
    });
    await screen.findByText('Toast 11');
    const visible = document.querySelectorAll('[data-sonner-toast][data-visible="true"]');
    expect(visible).toHaveLength(9);
  });

  it('follows the colour mode', async () => {
    window.localStorage.setItem('switchyard-color-scheme', 'dark');
    renderToaster();
    act(() => {
      notify.info('Dark toast');
    });
    await screen.findByText('Dark toast');
    expect(document.querySelector('[data-sonner-toaster]')).toHaveAttribute('data-sonner-theme', 'dark');
  });
});
