import type { PublicUser } from '@switchyard/contracts';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { setStoredUser } from './auth.ts';
import { type Trpc, useTRPC } from './trpc.ts';

/**
 * Puts a changed user everywhere the app keeps it: the cached basic data (which the app gate hydrates from
 * on every navigation, so it must not hold the old user) and the auth state with its copy in local storage.
 */
export function replaceCurrentUser(queryClient: QueryClient, trpc: Trpc, user: PublicUser): void {
  queryClient.setQueryData(trpc.hydration.getBasicData.queryKey(), (data) => (data ? { ...data, user } : data));
  setStoredUser(user);
}

export function useReplaceCurrentUser(): (user: PublicUser) => void {
  const queryClient = useQueryClient();
  const trpc = useTRPC();
  return useCallback((user: PublicUser) => replaceCurrentUser(queryClient, trpc, user), [queryClient, trpc]);
}
