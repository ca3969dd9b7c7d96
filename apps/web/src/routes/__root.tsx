import { createRootRouteWithContext, Outlet } from '@tanstack/react-router';
import { BuildCheck } from '../components/build-check.tsx';
import { NotFoundPage } from '../components/not-found-page.tsx';
import { ThemeParam } from '../components/theme-param.tsx';
import type { RouterContext } from '../router.tsx';

export const Route = createRootRouteWithContext<RouterContext>()({
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
