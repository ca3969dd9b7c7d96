import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render-app.tsx';

const OUTBOX = 'GET /api/frontend/dev/outbox';

const message = {
  id: 'm-2',
  to: 'ada@example.com',
  subject: 'Confirm your Switchyard account',
  text: 'Welcome, Ada. Confirm your account by opening the link below.',
  html: '<p>Welcome</p>',
  links: ['http://localhost:5173/confirm/abc123'],
  createdAt: '2025-05-01T10:00:00.000Z',
};

describe('development mailbox', () => {
  it('lists the messages and shows one with clickable links when expanded', async () => {
    const { user } = await renderApp('/dev/mailbox', {
      rest: {
        [OUTBOX]: () => ({
          body: {
            enabled: true,
            messages: [message, { ...message, id: 'm-1', to: 'bob@example.com', subject: 'Reset your password' }],
          },
        }),
      },
    });
    expect(await screen.findByRole('heading', { name: 'Development mailbox' })).toBeInTheDocument();
    const first = await screen.findByRole('button', { name: /Confirm your Switchyard account/ });
    expect(within(first).getByText('To ada@example.com')).toBeInTheDocument();
    expect(within(first).getByText((_, el) => el?.getAttribute('datetime') === message.createdAt)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Reset your password/ })).toBeInTheDocument();

    await user.click(first);
    expect(first).toHaveAttribute('aria-expanded', 'true');
    const panel = document.getElementById(first.getAttribute('aria-controls') ?? '');
    if (!panel) throw new Error('the message has no panel');
    await waitFor(() => expect(within(panel).getByText(message.text)).toBeVisible());
    expect(within(panel).getByRole('link', { name: message.links[0] })).toHaveAttribute('href', message.links[0]);
  });

  it('says when there are no messages yet', async () => {
    await renderApp('/dev/mailbox', { rest: { [OUTBOX]: () => ({ body: { enabled: true, messages: [] } }) } });
    expect(await screen.findByText('No messages yet')).toBeInTheDocument();
  });

  it('says when the server sends real e-mail instead', async () => {
    await renderApp('/dev/mailbox', {
      rest: { [OUTBOX]: () => ({ status: 404, body: { enabled: false, messages: [] } }) },
    });
    expect(await screen.findByText('The development mailbox is off')).toBeInTheDocument();
  });

  it('shows a failure', async () => {
    await renderApp('/dev/mailbox', {
      rest: { [OUTBOX]: () => ({ status: 500, body: { code: 500, message: 'Outbox unreadable' } }) },
    });
    expect(await screen.findByText('Outbox unreadable')).toBeInTheDocument();
  });
});
