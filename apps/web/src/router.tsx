import { ROUTE_PRELOAD_CACHE_MS } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { createRouter, type RouterHistory } from '@tanstack/react-router';
import { RouteErrorPage } from './components/error-page.tsx';
import { FullPageLoader } from './components/full-page-loader.tsx';
import { NotFoundPage } from './components/not-found-page.tsx';
import type { Trpc } from './lib/trpc.ts';
import { routeTree } from './routeTree.gen.ts';

export interface RouterContext {
  queryClient: QueryClient;
  trpc: Trpc;
}

export function createAppRouter(context: RouterContext, history?: RouterHistory) {
  return createRouter({
    routeTree,
    context,
    ...(history ? { history } : {}),
    defaultPreload: 'intent',
    defaultPreloadStaleTime: ROUTE_PRELOAD_CACHE_MS,
    defaultPreloadGcTime: ROUTE_PRELOAD_CACHE_MS,
    defaultPendingComponent: FullPageLoader,
    defaultErrorComponent: RouteErrorPage,
    defaultNotFoundComponent: NotFoundPage,
    scrollRestoration: true,
  });
}

export type AppRouterInstance = ReturnType<typeof createAppRouter>;

declare module '@tanstack/react-router' {
  interface Register {
    router: AppRouterInstance;
  }
}
