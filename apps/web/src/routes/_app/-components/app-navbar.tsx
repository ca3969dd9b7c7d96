import { NavLink, Stack } from '@mantine/core';
import { Link, useMatchRoute } from '@tanstack/react-router';
import { NAV_DESTINATIONS } from '../../../lib/nav.ts';

const SIDEBAR_LINKS = NAV_DESTINATIONS.filter((destination) => destination.inSidebar);

export function AppNavbar({ onNavigate }: { onNavigate?: () => void }) {
  const matchRoute = useMatchRoute();
  return (
    <Stack gap={4}>
      {SIDEBAR_LINKS.map((destination) => {
        const active = Boolean(matchRoute({ to: destination.to, fuzzy: true }));
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
