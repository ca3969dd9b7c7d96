import { type ColumnsFilterEntry, setColumnsFilter } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { getAuthState, useAuth } from './auth.ts';
import { basicDataOptions } from './basic-data.ts';
import { replaceCurrentUser } from './current-user.ts';
import { useTRPC } from './trpc.ts';

type CatalogIntegrationId = ColumnsFilterEntry['catalog_integration_id'];

/** The entry of one catalog integration, matched as the server matches it (ids compared as text). */
export function findColumnsFilter(
  list: readonly ColumnsFilterEntry[] | undefined,
  catalogIntegrationId: CatalogIntegrationId,
): ColumnsFilterEntry | undefined {
  return list?.find((entry) => String(entry.catalog_integration_id) === String(catalogIntegrationId));
}

/**
 * SPEC §3: the columns shown for one catalog integration, from the user's settings.columnsFilter.
 * `setColumns` stores them on the server (users.setColumnsFilter) and then in the locally kept user with the
 * same rule: the entry with the same catalog_integration_id is replaced, otherwise one is appended.
 */
export function useColumnsFilter(catalogIntegrationId: CatalogIntegrationId) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const auth = useAuth();
  const basic = useQuery(basicDataOptions(trpc));
  const user = auth.user ?? basic.data?.user ?? null;
  const columns = findColumnsFilter(user?.settings.columnsFilter, catalogIntegrationId)?.columns;

  const mutation = useMutation(
    trpc.users.setColumnsFilter.mutationOptions({
      onSuccess: (_settings, entry) => {
        // The latest user, not the one this render saw: another change may have landed meanwhile.
        const current = getAuthState().user ?? queryClient.getQueryData(basicDataOptions(trpc).queryKey)?.user;
        if (!current) return;
        const columnsFilter = setColumnsFilter(current.settings.columnsFilter, entry);
        replaceCurrentUser(queryClient, trpc, { ...current, settings: { ...current.settings, columnsFilter } });
      },
    }),
  );
  const { mutateAsync } = mutation;

  const setColumns = useCallback(
    (next: string[]) => mutateAsync({ catalog_integration_id: catalogIntegrationId, columns: next }),
    [mutateAsync, catalogIntegrationId],
  );

  return {
    /** The stored columns, or undefined when none were chosen for this integration yet. */
    columns,
    setColumns,
    pending: mutation.isPending,
    error: mutation.error,
  };
}
