import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../test/render-app.tsx';

const stored = () => window.localStorage.getItem('switchyard-color-scheme');
const applied = () => document.documentElement.getAttribute('data-mantine-color-scheme');

async function openAt(path: string) {
  const app = await renderApp(path, { signedIn: true });
  await screen.findByRole('heading', { name: 'Dashboard' });
  return app;
}

describe('theme query parameter', () => {
  it('starts in light mode', async () => {
    await openAt('/dashboard');
    expect(applied()).toBe('light');
    expect(screen.getByRole('radio', { name: 'Light' })).toBeChecked();
  });

  it('applies a valid mode and remembers it', async () => {
    const first = await openAt('/dashboard?theme=dark');
    expect(applied()).toBe('dark');
    expect(stored()).toBe('dark');
    first.unmount();

    await openAt('/dashboard');
    expect(applied()).toBe('dark');
    expect(screen.getByRole('radio', { name: 'Dark' })).toBeChecked();
  });

  it('accepts letters in any case and surrounding spaces', async () => {
    await openAt('/dashboard?theme=%20Auto%20');
    expect(stored()).toBe('auto');
    expect(screen.getByRole('radio', { name: 'Auto' })).toBeChecked();
  });

  it.each([
    ['a tab, which is not a space', '/dashboard?theme=dark%09'],
    ['punctuation', '/dashboard?theme=dark%3Bx'],
    ['markup', '/dashboard?theme=%3Cscript%3Edark%3C%2Fscript%3E'],
    ['an unknown mode', '/dashboard?theme=blue'],
    ['an empty value', '/dashboard?theme='],
  ])('ignores %s', async (_, path) => {
    await openAt(path);
    expect(applied()).toBe('light');
    expect(stored()).toBeNull();
  });

  it('applies the parameter when a link in the app carries it', async () => {
    const { router } = await openAt('/dashboard');
    await router.navigate({ href: '/dashboard?theme=dark' });
    await screen.findByRole('radio', { name: 'Dark', checked: true });
    expect(stored()).toBe('dark');
  });

  it('lets the colour switch override the parameter', async () => {
    const { user } = await openAt('/dashboard?theme=dark');
    await user.click(screen.getByRole('radio', { name: 'Light' }));
    expect(applied()).toBe('light');
    expect(stored()).toBe('light');
    expect(screen.getByRole('radio', { name: 'Light' })).toBeChecked();
  });
});
