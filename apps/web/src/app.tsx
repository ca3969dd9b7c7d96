import { API_PATHS } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { type RouterHistory, RouterProvider } from '@tanstack/react-router';
import { AppProviders } from './components/app-providers.tsx';
import { initApi } from './lib/api.ts';
import { ACTING_ENDED_MESSAGE, clearSession, endExpiredActing } from './lib/auth.ts';
import { isUnauthorized } from './lib/errors.ts';
import { createQueryClient } from './lib/query-client.ts';
import { notify } from './lib/toast.ts';
import { createTrpcClient, createTrpcProxy, type TrpcClient } from './lib/trpc.ts';
import { createUnauthorizedHandler, type UnauthorizedHandlerOptions } from './lib/unauthorized.ts';
import { type AppRouterInstance, createAppRouter } from './router.tsx';

export interface AppServices {
  queryClient: QueryClient;
  trpcClient: TrpcClient;
  router: AppRouterInstance;
}

export interface AppServicesOptions {
  history?: RouterHistory;
  /** The network edge for tRPC; tests stub it. */
  fetch?: typeof globalThis.fetch;
  /** Where an expired session goes; defaults to a full page load of /login. */
  goToLogin?: UnauthorizedHandlerOptions['goTo'];
}

/** Everything the app needs, wired once: REST base URLs, query client, tRPC client and router. */
export function createAppServices({ history, fetch, goToLogin }: AppServicesOptions = {}): AppServices {
  initApi({ frontend: API_PATHS.frontend, v1: API_PATHS.v1, v2: API_PATHS.v2 });
  let router: AppRouterInstance | undefined;
  const onUnauthorized = createUnauthorizedHandler({
    // The router's location, not window.location: with memory history (tests) they differ.
    currentAddress: () =>
      router ? router.state.location.pathname + router.state.location.searchStr : window.location.pathname,
    ...(goToLogin ? { goTo: goToLogin } : {}),
  });
  const queryClient = createQueryClient({
    onError: (error) => {
      if (!isUnauthorized(error)) return;
      // An expired acting session hands the superuser back their own; nothing else to do but start afresh there.
      if (endExpiredActing()) {
        notify.info(ACTING_ENDED_MESSAGE);
        queryClient.clear();
        void router?.navigate({ to: '/admin/accounts' });
        return;
      }
      // The server no longer accepts this session: forget it now, so nothing else goes out with it.
      clearSession();
      onUnauthorized(error);
    },
  });
  const trpcClient = createTrpcClient(fetch ? { fetch } : {});
  router = createAppRouter({ queryClient, trpc: createTrpcProxy(trpcClient, queryClient) }, history);
  return { queryClient, trpcClient, router };
}

export function App({ services, env }: { services: AppServices; env?: 'default' | 'test' }) {
  return (
    <AppProviders queryClient={services.queryClient} trpcClient={services.trpcClient} env={env}>
      <RouterProvider router={services.router} />
    </AppProviders>
  );
}
