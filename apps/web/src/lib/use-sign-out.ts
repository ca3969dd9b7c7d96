import { useQueryClient } from '@tanstack/react-query';
import { useRouter } from '@tanstack/react-router';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from './api.ts';
import { clearSession } from './auth.ts';

/**
 * Sign-out (SPEC §4): asks the server to end the session (a failure changes nothing: the token is dropped
 * anyway), removes the token and user, clears every cached query and goes to /login.
 */
export function useSignOut() {
  const queryClient = useQueryClient();
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  const signOut = useCallback(async () => {
    setPending(true);
    try {
      await api.frontend.post('logout');
    } catch {
      // Ignored on purpose: the session ends on this device whatever the server said.
    }
    clearSession();
    // Leave first: screens still mounted would fetch their cleared queries again, now without a token.
    await router.navigate({ to: '/login' });
    queryClient.clear();
    if (mounted.current) setPending(false);
  }, [queryClient, router]);

  return { signOut, pending };
}
