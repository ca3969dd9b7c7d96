import type { ChannelSummary } from '@switchyard/contracts';
import { act, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { basicData } from '../../../test/session.ts';
import { ProcedureError } from '../../../test/trpc-stub.ts';
import { channel } from '../products/-components/test-fixtures.ts';
import { checklistSteps } from './-components/get-started.tsx';

function stepState(label: string) {
  const list = screen.getByRole('list', { name: 'Setup steps' });
  const item = within(list)
    .getAllByRole('listitem')
    .find((li) => li.textContent?.includes(label));
  return item?.getAttribute('data-done');
}

describe('get started checklist', { timeout: 20_000 }, () => {
  it('reads the steps from the account status and the onboarding settings', async () => {
    await renderApp('/dashboard', {
      signedIn: {
        status: 'active',
        accountSettings: [
          { key: 'onboarding.channels_connected', value: true },
          { key: 'onboarding.locations_mapped', value: false },
          { key: 'something.else', value: true },
        ],
      },
    });
    const card = await screen.findByRole('region', { name: 'Get started' });
    expect(await within(card).findByText('3 of 5 steps done')).toBeInTheDocument();
    expect(stepState('Confirm your e-mail')).toBe('true');
    expect(stepState('Choose a plan')).toBe('true');
    expect(stepState('Connect a sales channel')).toBe('true');
    expect(stepState('Map your locations')).toBe('false');
    expect(stepState('Import your catalog')).toBe('false');
    // Steps left to do link to their screens; done ones are text.
    expect(
      within(card)
        .getAllByRole('link')
        .map((link) => link.getAttribute('href')),
    ).toEqual(['/locations', '/products']);
  });

  it('waits for the channels before it says what is left: a connected shop is never shown as a step to do', async () => {
    const shop = channel({ id: 'chn_7', type: 'shopify', name: 'Harbor Goods' });
    let answer: (channels: ChannelSummary[]) => void = () => {};
    await renderApp('/dashboard', {
      signedIn: { status: 'active' },
      handlers: {
        'channels.list': () => new Promise<ChannelSummary[]>((resolve) => (answer = resolve)),
        'locations.mappingStatus': () => [],
      },
    });
    const card = await screen.findByRole('region', { name: 'Get started' });
    expect(await within(card).findByRole('status', { name: 'Loading the checklist' })).toBeInTheDocument();
    expect(within(card).queryByRole('list', { name: 'Setup steps' })).not.toBeInTheDocument();
    await act(async () => answer([shop]));
    await within(card).findByRole('list', { name: 'Setup steps' });
    expect(stepState('Connect a sales channel')).toBe('true');
    expect(within(card).getByText('3 of 5 steps done')).toBeInTheDocument();
  });

  it('counts a plan as chosen only for active and past-due accounts', () => {
    const steps = (status: Parameters<typeof basicData>[0]) =>
      Object.fromEntries(checklistSteps(basicData(status)).map((step) => [step.id, step.done]));
    expect(steps({ status: 'past_due' })).toMatchObject({ confirm: true, plan: true });
    expect(steps({ status: 'canceled' })).toMatchObject({ confirm: true, plan: false });
    expect(steps({ status: 'created' })).toMatchObject({ confirm: false, plan: false });
    expect(steps({ status: 'awaiting_payment' })).toMatchObject({ confirm: true, plan: false });
    expect(
      steps({ status: 'active', accountSettings: [{ key: 'onboarding.catalog_imported', value: 'yes' }] }),
    ).toMatchObject({ catalog: false });
  });

  it('shows a failure to load with a retry', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await renderApp('/dashboard', {
      signedIn: true,
      handlers: {
        'hydration.getBasicData': () => {
          throw new ProcedureError('FORBIDDEN', 'Not for you');
        },
      },
    });
    const card = await screen.findByRole('region', { name: 'Get started' });
    // The page queries again (3 retries with back-off: 1 s, 2 s, 4 s) before it shows the failure.
    await act(() => vi.advanceTimersByTimeAsync(8_000));
    expect(await within(card).findByText('Not for you')).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
