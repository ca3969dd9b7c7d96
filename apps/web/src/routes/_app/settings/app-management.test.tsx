import type { ApiKey, ApiKeyList } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';

const KEY: ApiKey = {
  id: 'k-1',
  name: 'Warehouse scanner',
  prefix: 'sy_live_ab12',
  createdBy: 'u-1',
  createdAt: '2026-01-02T03:04:05.000Z',
  lastUsedAt: null,
};
const SECRET = 'sy_live_ab12cd34ef56gh78ij90kl12mn34op56';

/** A tiny in-memory store of keys behind apps.list/create/update/revoke. */
function keyStore(initial: ApiKey[] = []) {
  let keys = [...initial];
  const calls: { path: string; input: unknown }[] = [];
  const list = (): ApiKeyList => ({ results: keys, total: keys.length, limit: 25, offset: 0 });
  return {
    calls,
    handlers: {
      'apps.list': list,
      'apps.create': (input: unknown) => {
        calls.push({ path: 'create', input });
        const key = { ...KEY, id: 'k-2', name: (input as { name: string }).name, prefix: 'sy_live_ab12' };
        keys = [...keys, key];
        return { key, secret: SECRET };
      },
      'apps.update': (input: unknown) => {
        calls.push({ path: 'update', input });
        const { id, name } = input as { id: string; name: string };
        keys = keys.map((key) => (key.id === id ? { ...key, name } : key));
        return keys.find((key) => key.id === id);
      },
      'apps.revoke': (input: unknown) => {
        calls.push({ path: 'revoke', input });
        const { id } = input as { id: string };
        keys = keys.filter((key) => key.id !== id);
        return { id, revoked: true };
      },
    },
  };
}

describe('app management', () => {
  it('explains API keys when there are none, with a link to the API docs', async () => {
    const store = keyStore();
    await renderApp('/settings/app-management', { signedIn: true, handlers: store.handlers });
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
    expect(screen.getByText(/public REST API v1 and v2/)).toBeInTheDocument();
    for (const link of screen.getAllByRole('link', { name: 'API documentation' })) {
      expect(link).toHaveAttribute('href', '/api/docs');
    }
  });

  it('lists keys by name, prefix, dates and status', async () => {
    const store = keyStore([
      { ...KEY, lastUsedAt: '2026-02-03T04:05:06.000Z' },
      { ...KEY, id: 'k-3', name: 'ERP' },
    ]);
    await renderApp('/settings/app-management', { signedIn: true, handlers: store.handlers });
    const table = await screen.findByRole('table', { name: 'API keys' });
    const [header, first, second] = within(table).getAllByRole('row');
    expect(header).toHaveTextContent('NameKeyCreatedLast usedStatus');
    expect(first).toHaveTextContent('Warehouse scanner');
    expect(first).toHaveTextContent('sy_live_ab12…');
    expect(first).toHaveTextContent('Active');
    expect(second).toHaveTextContent('Never');
  });

  it('shows the secret of a new key once; closing the dialog hides it for good', async () => {
    const store = keyStore();
    const { user, services } = await renderApp('/settings/app-management', {
      signedIn: true,
      handlers: store.handlers,
    });
    await user.click(await screen.findByRole('button', { name: 'Create your first API key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create an API key' });
    await user.click(within(dialog).getByRole('button', { name: 'Create key' }));
    expect(within(dialog).getByText('* Required')).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText(/Name/), 'Point of sale');
    await user.click(within(dialog).getByRole('button', { name: 'Create key' }));

    const shown = await screen.findByRole('dialog', { name: 'Copy your new API key' });
    expect(within(shown).getByText(SECRET)).toBeInTheDocument();
    expect(within(shown).getByText('This is the only time you will see this key')).toBeInTheDocument();
    await user.click(within(shown).getByRole('button', { name: 'Copy key' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(within(shown).getByRole('button', { name: 'Copied' })).toBeInTheDocument();
    expect(store.calls).toEqual([{ path: 'create', input: { name: 'Point of sale' } }]);

    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText(SECRET)).not.toBeInTheDocument());
    const table = await screen.findByRole('table', { name: 'API keys' });
    expect(within(table).getByText('Point of sale')).toBeInTheDocument();
    // Opening the dialog again starts a new key; the old secret is nowhere, not even in the mutation cache.
    await user.click(screen.getByRole('button', { name: 'Create API key' }));
    expect(await screen.findByRole('dialog', { name: 'Create an API key' })).toBeInTheDocument();
    expect(screen.queryByText(SECRET)).not.toBeInTheDocument();
    await waitFor(() => {
      const mutations = services.queryClient.getMutationCache().getAll();
      expect(JSON.stringify(mutations.map((mutation) => mutation.state.data))).not.toContain(SECRET);
    });
  });

  it('renames a key', async () => {
    const store = keyStore([KEY]);
    const { user } = await renderApp('/settings/app-management', { signedIn: true, handlers: store.handlers });
    await user.click(await screen.findByRole('button', { name: 'Rename Warehouse scanner' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rename API key' });
    const name = within(dialog).getByLabelText(/Name/);
    expect(name).toHaveValue('Warehouse scanner');
    await user.clear(name);
    await user.type(name, 'Back room scanner');
    await user.click(within(dialog).getByRole('button', { name: 'Save name' }));
    const table = await screen.findByRole('table', { name: 'API keys' });
    expect(await within(table).findByText('Back room scanner')).toBeInTheDocument();
    expect(store.calls).toEqual([{ path: 'update', input: { id: 'k-1', name: 'Back room scanner' } }]);
  });

  it('revokes a key only after confirming', async () => {
    const store = keyStore([KEY]);
    const { user } = await renderApp('/settings/app-management', { signedIn: true, handlers: store.handlers });
    await user.click(await screen.findByRole('button', { name: 'Revoke Warehouse scanner' }));
    let dialog = await screen.findByRole('dialog', { name: 'Revoke API key?' });
    expect(dialog).toHaveTextContent('will stop working at once');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(store.calls).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Revoke Warehouse scanner' }));
    dialog = await screen.findByRole('dialog', { name: 'Revoke API key?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke key' }));
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
    expect(store.calls).toEqual([{ path: 'revoke', input: { id: 'k-1' } }]);
  });
});
