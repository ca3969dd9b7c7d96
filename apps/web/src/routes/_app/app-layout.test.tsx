import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { WIDE_SCREEN } from '../../lib/media.ts';
import { matchOnly } from '../../test/media.ts';
import { renderApp } from '../../test/render-app.tsx';

async function openDashboard() {
  const app = await renderApp('/dashboard', { signedIn: true });
  await screen.findByRole('heading', { name: 'Dashboard' });
  return app;
}

describe('app layout', () => {
  it('has a header with the product name, navigation toggle and colour switch', async () => {
    await openDashboard();
    const header = screen.getByRole('banner');
    expect(within(header).getByRole('link', { name: 'Switchyard' })).toHaveAttribute('href', '/dashboard');
    expect(within(header).getByRole('button', { name: 'Toggle navigation' })).toBeInTheDocument();
    expect(within(header).getByRole('radiogroup', { name: 'Colour mode' })).toBeInTheDocument();
  });

  it('links to the screens that exist and marks the current one', async () => {
    await openDashboard();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    const links = within(nav).getAllByRole('link');
    expect(links.map((link) => link.textContent)).toEqual([
      'Dashboard',
      'Orders',
      'Returns',
      'Fulfillment',
      'Channels',
      'Locations',
      'Order routing',
      'Products',
      'Dynamic buffers',
      'Syncs',
      'Settings',
      'Help',
    ]);
    expect(links[0]).toHaveAttribute('aria-current', 'page');
  });

  it('hides and shows the navigation from the header', async () => {
    // jsdom matches no media query, so this is the narrow-screen behaviour: closed until opened.
    const { user } = await openDashboard();
    const toggle = screen.getByRole('button', { name: 'Toggle navigation' });
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(toggle).toHaveAttribute('aria-controls', nav.id);
    expect(nav).toHaveAttribute('inert');

    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(nav).not.toHaveAttribute('inert');

    await user.click(within(nav).getByRole('link', { name: 'Dashboard' }));
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
  });

  it('on a wide screen shows the navigation beside the page until the user hides it, and remembers that', async () => {
    matchOnly(WIDE_SCREEN);
    const { user, unmount } = await openDashboard();
    const header = screen.getByRole('banner');
    // No burger that reads as a close button here (issue 19): a sidebar toggle that says what it does.
    expect(within(header).queryByRole('button', { name: 'Toggle navigation' })).not.toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(nav).not.toHaveAttribute('inert');
    expect(within(nav).getByRole('link', { name: 'Channels' })).toBeVisible();
    const hide = within(header).getByRole('button', { name: 'Hide menu' });
    expect(hide).toHaveAttribute('aria-expanded', 'true');
    expect(hide).toHaveAttribute('aria-controls', nav.id);

    await user.click(hide);
    expect(nav).toHaveAttribute('inert');
    expect(within(header).getByRole('button', { name: 'Show menu' })).toHaveAttribute('aria-expanded', 'false');
    // Following a link does not bring it back: it stays as the user left it.
    await user.click(within(header).getByRole('link', { name: 'Switchyard' }));
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toHaveAttribute('inert');

    // Remembered on this device: the next visit starts with it hidden.
    unmount();
    await openDashboard();
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toHaveAttribute('inert');
    await user.click(screen.getByRole('button', { name: 'Show menu' }));
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).not.toHaveAttribute('inert');
    expect(screen.getByRole('button', { name: 'Hide menu' })).toHaveAttribute('aria-expanded', 'true');
  });

  it('is usable from the keyboard', async () => {
    const { user } = await openDashboard();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Toggle navigation' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('button', { name: 'Toggle navigation' })).toHaveAttribute('aria-expanded', 'true');
    await user.tab();
    expect(screen.getByRole('link', { name: 'Switchyard' })).toHaveFocus();
  });
});
