import type { Notification, NotificationList, NotificationSettings } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';

const NOW = new Date();

function notificationOf(id: number, overrides: Partial<Notification> = {}): Notification {
  return {
    id: `ntf_${id}`,
    type: 'order_flagged',
    title: `Order #${1000 + id} is flagged`,
    body: 'A line has no stock where it was routed.',
    link: `/orders/ord_${id}`,
    count: 1,
    createdAt: NOW,
    lastAt: new Date(NOW.getTime() - id * 60_000),
    readAt: id > 3 ? NOW : null,
    ...overrides,
  };
}

const SETTINGS: NotificationSettings = {
  emailTypes: ['payment_failed'],
  digestHour: 8,
  orderWaitHours: 24,
  lowStockThreshold: 5,
  timezone: 'Europe/Berlin',
  nextDigestAt: new Date('2026-11-27T07:00:00Z'),
};

/** A server of 30 notifications, 3 unread; marking read changes what it answers next. */
function feedServer() {
  let items = Array.from({ length: 30 }, (_, i) => notificationOf(i + 1));
  items[0] = notificationOf(1, { type: 'sync_failed', title: 'Stock push with Main Shopify failed', link: '/help' });
  const calls: { markAll: number; markRead: unknown[]; settings: unknown[] } = {
    markAll: 0,
    markRead: [],
    settings: [],
  };
  const unread = () => items.filter((n) => !n.readAt).length;
  const handlers = {
    'notifications.unreadCount': () => ({ unread: unread() }),
    'notifications.list': (input: unknown): NotificationList => {
      const i = (input ?? {}) as { unread?: boolean; limit?: number; offset?: number };
      const rows = i.unread ? items.filter((n) => !n.readAt) : items;
      const offset = i.offset ?? 0;
      return { results: rows.slice(offset, offset + (i.limit ?? 25)), total: rows.length, unread: unread() };
    },
    'notifications.markAllRead': () => {
      calls.markAll += 1;
      const updated = unread();
      items = items.map((n) => ({ ...n, readAt: n.readAt ?? new Date() }));
      return { updated };
    },
    'notifications.markRead': (input: unknown) => {
      calls.markRead.push(input);
      const ids = (input as { ids: string[] }).ids;
      items = items.map((n) => (ids.includes(n.id) ? { ...n, readAt: n.readAt ?? new Date() } : n));
      return { updated: ids.length };
    },
    'notifications.settings': () => SETTINGS,
    'notifications.updateSettings': (input: unknown) => {
      calls.settings.push(input);
      return { ...SETTINGS, ...(input as object) };
    },
    'orders.get': () => {
      throw new Error('not needed');
    },
  };
  return { handlers, calls };
}

describe('notification bell', { timeout: 30_000 }, () => {
  it('shows the unread count, lists recent ones, and marks all read', async () => {
    const { handlers, calls } = feedServer();
    const { user } = await renderApp('/dashboard', { signedIn: true, handlers });
    const header = screen.getByRole('banner');
    const bell = await within(header).findByRole('button', { name: 'Notifications: 3 unread' });
    expect(within(header).getByText('3')).toBeInTheDocument();

    await user.click(bell);
    const dropdown = await screen.findByRole('dialog');
    expect(
      await within(dropdown).findByRole('button', { name: 'Unread: Stock push with Main Shopify failed' }),
    ).toBeInTheDocument();
    expect(within(dropdown).getAllByRole('button', { name: /^(Unread: )?(Order|Stock)/ })).toHaveLength(8);
    expect(within(dropdown).getByRole('link', { name: 'See all notifications' })).toHaveAttribute(
      'href',
      '/notifications',
    );

    await user.click(within(dropdown).getByRole('button', { name: 'Mark all read' }));
    await waitFor(() => expect(calls.markAll).toBe(1));
    expect(await within(header).findByRole('button', { name: 'Notifications' })).toBeInTheDocument();
  });

  it('opening a notification marks it read and goes where it is handled', async () => {
    const { handlers, calls } = feedServer();
    const { user, router } = await renderApp('/dashboard', {
      signedIn: true,
      handlers,
    });
    await user.click(await screen.findByRole('button', { name: 'Notifications: 3 unread' }));
    await user.click(await screen.findByRole('button', { name: 'Unread: Stock push with Main Shopify failed' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/help'));
    expect(calls.markRead).toEqual([{ ids: ['ntf_1'] }]);
  });
});

describe('/notifications', { timeout: 30_000 }, () => {
  it('lists with paging, filters unread in the address, and marks all read', async () => {
    const { handlers, calls } = feedServer();
    const { user, router } = await renderApp('/notifications', { signedIn: true, handlers });
    const list = await screen.findByRole('list', { name: 'Notifications' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(25);
    expect(screen.getByText('1–25 of 30')).toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: 'Unread (3)' }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(3));
    expect(router.state.location.search).toMatchObject({ unread: true });

    await user.click(screen.getByRole('button', { name: 'Mark all read' }));
    await waitFor(() => expect(calls.markAll).toBe(1));
    expect(await screen.findByText('Nothing unread')).toBeInTheDocument();
  });

  it('moves between notifications with the keyboard and marks one read with m', async () => {
    const { handlers, calls } = feedServer();
    const { user } = await renderApp('/notifications', { signedIn: true, handlers });
    const first = await screen.findByRole('button', { name: 'Unread: Stock push with Main Shopify failed' });
    first.focus();
    await user.keyboard('j');
    expect(screen.getByRole('button', { name: 'Unread: Order #1002 is flagged' })).toHaveFocus();
    await user.keyboard('m');
    await waitFor(() => expect(calls.markRead).toEqual([{ ids: ['ntf_2'] }]));
  });

  it('shows an empty state, and saves the e-mail settings', async () => {
    const { handlers, calls } = feedServer();
    const { user } = await renderApp('/notifications', {
      signedIn: true,
      handlers: { ...handlers, 'notifications.list': () => ({ results: [], total: 0, unread: 0 }) },
    });
    expect(await screen.findByText('No notifications yet')).toBeInTheDocument();
    expect(await screen.findByText(/Your account's time zone: Europe\/Berlin/)).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: /Flagged orders/ }));
    const wait = screen.getByRole('textbox', { name: 'Order waiting too long after (hours)' });
    await user.clear(wait);
    await user.click(screen.getByRole('button', { name: 'Save settings' }));
    expect(await screen.findByText('Order wait hours is a required field')).toBeInTheDocument();
    await user.type(wait, '12');
    await user.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() =>
      expect(calls.settings).toEqual([
        { emailTypes: ['payment_failed', 'order_flagged'], digestHour: 8, orderWaitHours: 12 },
      ]),
    );
    // The low-stock threshold is a stock setting of the account, shown here with the way to it.
    expect(screen.getByText(/Low stock means 5 or fewer available to sell on a channel/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'stock settings' })).toHaveAttribute('href', '/settings/account');
  });

  it('shows an error with a retry when the feed cannot load', async () => {
    const { handlers } = feedServer();
    // Three retries, 1 s doubling (SPEC §9), before the failure shows: on a fake clock, which findBy moves on.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await renderApp('/notifications', {
      signedIn: true,
      handlers: {
        ...handlers,
        'notifications.list': () => {
          throw new (class extends Error {})('boom');
        },
      },
    });
    expect(await screen.findByText('Could not load the notifications', {}, { timeout: 20_000 })).toBeInTheDocument();
  });
});
