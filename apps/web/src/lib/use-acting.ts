import type { ActAsOutput } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from '@tanstack/react-router';
import { isActing, startActing, stopActing, useAuth } from './auth.ts';
import { HANDLES_UNAUTHORIZED } from './basic-data.ts';
import { errorMessage } from './errors.ts';
import { notify } from './toast.ts';
import { useTRPC } from './trpc.ts';

/**
 * Acting as an account (superusers): admin.actAs answers a token for it. The superuser's own token is put
 * aside under `superuser_token`, everything cached for their own account is dropped, and the app opens on
 * the dashboard with the acted account's basic data. Stopping (admin.endActing) brings their own token back.
 */
export function useActing() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  // Re-read on every auth change: acting starts and stops through the auth state.
  useAuth();
  const acting = isActing();

  const actAs = useMutation(
    trpc.admin.actAs.mutationOptions({
      onSuccess: async (output: ActAsOutput) => {
        startActing(output);
        queryClient.removeQueries();
        await router.navigate({ to: '/dashboard' });
      },
    }),
  );

  // An expired acting token answers UNAUTHORIZED; that must not end the superuser's own session too.
  const endActing = useMutation(trpc.admin.endActing.mutationOptions({ meta: HANDLES_UNAUTHORIZED }));
  const stop = async () => {
    try {
      await endActing.mutateAsync();
    } catch (error) {
      // The acting token is dropped on this device whatever the server said; it expires on its own.
      notify.warning(`The acting session could not be ended on the server: ${errorMessage(error)}`);
    }
    const restored = stopActing();
    queryClient.removeQueries();
    await router.navigate({ to: restored ? '/admin/accounts' : '/login' });
  };

  return { acting, actAs, stop, stopping: endActing.isPending };
}
