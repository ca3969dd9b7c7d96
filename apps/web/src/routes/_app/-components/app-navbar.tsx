import { NavLink, Stack } from '@mantine/core';
import { Link, useMatchRoute } from '@tanstack/react-router';
import { useAuth } from '../../../lib/auth.ts';
import { canSee, NAV_DESTINATIONS } from '../../../lib/nav.ts';

const SIDEBAR_LINKS = NAV_DESTINATIONS.filter((destination) => destination.inSidebar);

/** Where an entry counts as current: the Admin entry covers every /admin screen. */
function section(to: string): string {
  return to.startsWith('/admin') ? '/admin' : to;
}

export function AppNavbar({ onNavigate }: { onNavigate?: () => void }) {
  const matchRoute = useMatchRoute();
  const auth = useAuth();
  return (
    <Stack gap={4}>
      {SIDEBAR_LINKS.filter((destination) => canSee(destination, auth)).map((destination) => {
        const active = Boolean(matchRoute({ to: section(destination.to), fuzzy: true }));
        return (
          <NavLink
            key={destination.to}
            component={Link}
            to={destination.to}
            label={destination.label}
            active={active}
            aria-current={active ? 'page' : undefined}
            onClick={onNavigate}
          />
        );
      })}
    </Stack>
  );
}
