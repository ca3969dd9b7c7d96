import type { PublicUser } from '@switchyard/contracts';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { AppProviders } from '../components/app-providers.tsx';
import { basicData, fakeToken, TEST_USER } from '../test/session.ts';
import { trpcFetch } from '../test/trpc-stub.ts';
import { getAuthState, signIn } from './auth.ts';
import { basicDataOptions } from './basic-data.ts';
import { createQueryClient } from './query-client.ts';
import { createTrpcClient, createTrpcProxy } from './trpc.ts';
import { useColumnsFilter } from './use-columns-filter.ts';

const USER: PublicUser = {
  ...TEST_USER,
  settings: {
    columnsFilter: [
      { catalog_integration_id: 7, columns: ['sku', 'qty'] },
      { catalog_integration_id: 'shop-2', columns: ['sku'] },
    ],
  },
};

function setup() {
  signIn({ token: fakeToken(), user: USER, meta: basicData().meta, account: basicData().account });
  const fetch = trpcFetch({
    'hydration.getBasicData': () => ({ ...basicData(), user: USER }),
    'users.setColumnsFilter': () => ({ columnsFilter: [] }),
  });
  const queryClient = createQueryClient();
  const trpcClient = createTrpcClient({ fetch });
  const trpc = createTrpcProxy(trpcClient, queryClient);
  queryClient.setQueryData(basicDataOptions(trpc).queryKey, { ...basicData(), user: USER });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <AppProviders queryClient={queryClient} trpcClient={trpcClient} env="test">
      {children}
    </AppProviders>
  );
  return { fetch, queryClient, trpc, wrapper };
}

function stored(): PublicUser {
  return JSON.parse(window.localStorage.getItem('user') ?? 'null') as PublicUser;
}

describe('useColumnsFilter', () => {
  it('reads the columns of one catalog integration, matching ids as text', () => {
    const { wrapper } = setup();
    expect(renderHook(() => useColumnsFilter('7'), { wrapper }).result.current.columns).toEqual(['sku', 'qty']);
    expect(renderHook(() => useColumnsFilter('shop-2'), { wrapper }).result.current.columns).toEqual(['sku']);
    expect(renderHook(() => useColumnsFilter(99), { wrapper }).result.current.columns).toBeUndefined();
  });

  it('replaces the entry with the same id, on the server and in the locally stored user', async () => {
    const { fetch, queryClient, trpc, wrapper } = setup();
    const { result } = renderHook(() => useColumnsFilter(7), { wrapper });
    await act(() => result.current.setColumns(['sku', 'price']));
    const call = fetch.calls.find((c) => c.paths.includes('users.setColumnsFilter'));
    expect(call?.inputs[0]).toEqual({ catalog_integration_id: 7, columns: ['sku', 'price'] });
    const expected = [
      { catalog_integration_id: 7, columns: ['sku', 'price'] },
      { catalog_integration_id: 'shop-2', columns: ['sku'] },
    ];
    expect(stored().settings.columnsFilter).toEqual(expected);
    expect(getAuthState().user?.settings.columnsFilter).toEqual(expected);
    expect(queryClient.getQueryData(basicDataOptions(trpc).queryKey)?.user.settings.columnsFilter).toEqual(expected);
    await waitFor(() => expect(result.current.columns).toEqual(['sku', 'price']));
  });

  it('appends an entry for a new id and keeps the others', async () => {
    const { wrapper } = setup();
    const { result } = renderHook(() => useColumnsFilter('shop-3'), { wrapper });
    await act(() => result.current.setColumns(['title']));
    expect(stored().settings.columnsFilter).toEqual([
      ...USER.settings.columnsFilter,
      { catalog_integration_id: 'shop-3', columns: ['title'] },
    ]);
    await waitFor(() => expect(result.current.columns).toEqual(['title']));
    // The rest of the user is untouched.
    expect(stored()).toMatchObject({ email: USER.email, firstname: USER.firstname });
  });

  it('changes nothing locally when the server refuses', async () => {
    const { wrapper } = setup();
    const { result } = renderHook(() => useColumnsFilter(7), { wrapper });
    // No handler for this call this time: the stub answers an error.
    const queryClient = createQueryClient();
    const trpcClient = createTrpcClient({ fetch: trpcFetch({}) });
    const failing = renderHook(() => useColumnsFilter(7), {
      wrapper: ({ children }) => (
        <AppProviders queryClient={queryClient} trpcClient={trpcClient} env="test">
          {children}
        </AppProviders>
      ),
    });
    await act(() => failing.result.current.setColumns(['x']).catch(() => undefined));
    expect(stored().settings.columnsFilter).toEqual(USER.settings.columnsFilter);
    expect(result.current.columns).toEqual(['sku', 'qty']);
  });
});
