import { NavLink, Stack } from '@mantine/core';
import { Link, useMatchRoute } from '@tanstack/react-router';
import { useAuth } from '../../../lib/auth.ts';
import { canSee, NAV_DESTINATIONS } from '../../../lib/nav.ts';

const SIDEBAR_LINKS = NAV_DESTINATIONS.filter((destination) => destination.inSidebar);

/** Where an entry counts as current: the Admin entry covers every /admin screen without an entry of its own. */
function section(to: string): string {
  return to === '/admin/accounts' ? '/admin' : to;
}

export function AppNavbar({ onNavigate }: { onNavigate?: () => void }) {
  const matchRoute = useMatchRoute();
  const auth = useAuth();
  const links = SIDEBAR_LINKS.filter((destination) => canSee(destination, auth));
  // The most specific match wins: on /admin/plans that is Plans, not Admin.
  const current = links
    .filter((destination) => matchRoute({ to: section(destination.to), fuzzy: true }))
    .sort((a, b) => section(b.to).length - section(a.to).length)[0];
  return (
    <Stack gap={4}>
      {links.map((destination) => {
        const active = destination === current;
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
