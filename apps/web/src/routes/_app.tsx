import { AppShell } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type BasicData, statusGateRedirect } from '@switchyard/contracts';
import { createFileRoute, Outlet, redirect, useLocation } from '@tanstack/react-router';
import { useId } from 'react';
import { RenderErrorBoundary } from '../components/render-error.tsx';
import {
  ACTING_ENDED_MESSAGE,
  endExpiredActing,
  getValidToken,
  hasExpiredActingToken,
  hydrateSession,
} from '../lib/auth.ts';
import { basicDataOptions, HANDLES_UNAUTHORIZED, onBasicDataFailure } from '../lib/basic-data.ts';
import { useWideScreen } from '../lib/media.ts';
import { notify } from '../lib/toast.ts';
import { useSidebarVisible } from '../lib/ui-settings.ts';
import { AccountMenu } from './_app/-components/account-menu.tsx';
import { ActingBanner } from './_app/-components/acting-banner.tsx';
import { AppHeader } from './_app/-components/app-header.tsx';
import { AppNavbar } from './_app/-components/app-navbar.tsx';
import { NotificationBell } from './_app/-components/notification-bell.tsx';
import { PastDueBanner } from './_app/-components/past-due-banner.tsx';

export const Route = createFileRoute('/_app')({
  beforeLoad: async ({ context, location, preload }) => {
    // SPEC §4: signed out (no token, or one that expired or cannot be read) → sign in, then come back.
    const toLogin = () => redirect({ to: '/login', search: { redirect: location.href } });
    // An acting token lasts an hour; when it has run out, the superuser returns to their own session.
    if (!preload && hasExpiredActingToken() && endExpiredActing()) {
      context.queryClient.clear();
      notify.info(ACTING_ENDED_MESSAGE);
      throw redirect({ to: '/admin/accounts' });
    }
    if (!getValidToken()) throw toLogin();

    let data: BasicData;
    try {
      data = await context.queryClient.ensureQueryData({
        ...basicDataOptions(context.trpc),
        // A failure here is handled below at once, and the page then retries on its own.
        retry: false,
        meta: HANDLES_UNAUTHORIZED,
      });
    } catch (error) {
      // SPEC §8: the server message for 10 seconds; UNAUTHORIZED goes to login, anything else lets the page render.
      onBasicDataFailure(error, { href: location.href, preload });
      return;
    }

    hydrateSession(data);
    // SPEC §4: the account status decides whether the app area opens yet.
    const target = statusGateRedirect(data.account.status);
    if (target === '/confirmation') throw redirect({ to: '/confirmation', search: { email: data.user.email } });
    if (target) throw redirect({ href: target });
  },
  component: AppLayout,
});

const NAVBAR_BREAKPOINT = 'sm';

/** The signed-in shell: header, a navbar that can be hidden, and the page. */
function AppLayout() {
  const pathname = useLocation({ select: (location) => location.pathname });
  const navbarId = useId();
  // On a phone the navbar covers the page: it starts closed, the header's burger opens it, and it closes again
  // after a link is followed. On a wide screen it sits beside the page, shown unless the user hid it (SPEC §3's
  // sidebar setting, remembered); the header's toggle there is a sidebar icon, not a burger that reads as a
  // close button (issue 19).
  const [mobileOpen, mobile] = useDisclosure(false);
  const [sidebarVisible, setSidebarVisible] = useSidebarVisible();
  const isDesktop = useWideScreen();
  const navbarOpen = isDesktop ? sidebarVisible : mobileOpen;

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{
        width: 240,
        breakpoint: NAVBAR_BREAKPOINT,
        collapsed: { mobile: !mobileOpen, desktop: !sidebarVisible },
      }}
      padding="md"
    >
      <AppShell.Header>
        <AppHeader
          navbarId={navbarId}
          navbarOpen={navbarOpen}
          toggle={isDesktop ? 'sidebar' : 'burger'}
          onToggleNavbar={isDesktop ? () => setSidebarVisible((visible) => !visible) : mobile.toggle}
          accountSlot={
            <>
              <NotificationBell />
              <AccountMenu />
            </>
          }
        />
      </AppShell.Header>
      <AppShell.Navbar id={navbarId} aria-label="Main navigation" p="sm" inert={!navbarOpen}>
        <RenderErrorBoundary>
          <AppNavbar onNavigate={mobile.close} />
        </RenderErrorBoundary>
      </AppShell.Navbar>
      <AppShell.Main>
        <RenderErrorBoundary>
          <ActingBanner />
        </RenderErrorBoundary>
        <RenderErrorBoundary>
          <PastDueBanner />
        </RenderErrorBoundary>
        <RenderErrorBoundary resetKey={pathname}>
          <Outlet />
        </RenderErrorBoundary>
      </AppShell.Main>
    </AppShell>
  );
}
