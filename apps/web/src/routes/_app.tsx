import { AppShell } from '@mantine/core';
import { useDisclosure, useLocalStorage, useMediaQuery } from '@mantine/hooks';
import { createFileRoute, Outlet, useLocation } from '@tanstack/react-router';
import { useId } from 'react';
import { RenderErrorBoundary } from '../components/render-error.tsx';
import { SIDEBAR_STORAGE_KEY, UI_DEFAULTS } from '../lib/ui-settings.ts';
import { AppHeader } from './_app/-components/app-header.tsx';
import { AppNavbar } from './_app/-components/app-navbar.tsx';

export const Route = createFileRoute('/_app')({
  component: AppLayout,
});

const NAVBAR_BREAKPOINT = 'sm';

/** The signed-in shell: header, a navbar that can be hidden, and the page. */
function AppLayout() {
  const pathname = useLocation({ select: (location) => location.pathname });
  const navbarId = useId();
  // Remembered on wide screens (SPEC §3 UI settings); on a phone the navbar covers the page, so it
  // starts closed there and closes again after a link is followed.
  const [desktopOpen, setDesktopOpen] = useLocalStorage({
    key: SIDEBAR_STORAGE_KEY,
    defaultValue: UI_DEFAULTS.sidebarVisible,
    getInitialValueInEffect: false,
  });
  const [mobileOpen, mobile] = useDisclosure(false);
  const isDesktop = useMediaQuery('(min-width: 48em)', true, { getInitialValueInEffect: false });
  const navbarOpen = isDesktop ? desktopOpen : mobileOpen;
  const toggleNavbar = () => (isDesktop ? setDesktopOpen((open) => !open) : mobile.toggle());

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{
        width: 240,
        breakpoint: NAVBAR_BREAKPOINT,
        collapsed: { mobile: !mobileOpen, desktop: !desktopOpen },
      }}
      padding="md"
    >
      <AppShell.Header>
        <AppHeader navbarId={navbarId} navbarOpen={navbarOpen} onToggleNavbar={toggleNavbar} />
      </AppShell.Header>
      <AppShell.Navbar id={navbarId} aria-label="Main navigation" p="sm" inert={!navbarOpen}>
        <RenderErrorBoundary>
          <AppNavbar onNavigate={mobile.close} />
        </RenderErrorBoundary>
      </AppShell.Navbar>
      <AppShell.Main>
        <RenderErrorBoundary resetKey={pathname}>
          <Outlet />
        </RenderErrorBoundary>
      </AppShell.Main>
    </AppShell>
  );
}
