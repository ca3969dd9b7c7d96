import { createRootRouteWithContext, Outlet, redirect } from '@tanstack/react-router';
import { BuildCheck } from '../components/build-check.tsx';
import { NotFoundPage } from '../components/not-found-page.tsx';
import { ThemeParam } from '../components/theme-param.tsx';
import { pathForRouteId } from '../lib/route-id-path.ts';
import type { RouterContext } from '../router.tsx';

export const Route = createRootRouteWithContext<RouterContext>()({
  beforeLoad: ({ location }) => {
    const path = pathForRouteId(location.pathname);
    if (path) throw redirect({ href: `${path}${location.searchStr}`, replace: true });
  },
  component: RootLayout,
  notFoundComponent: NotFoundPage,
});

function RootLayout() {
  return (
    <>
      <ThemeParam />
      <BuildCheck />
      <Outlet />
    </>
  );
}
