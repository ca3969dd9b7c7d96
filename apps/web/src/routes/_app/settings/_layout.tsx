import { Button, Group, Stack, Title } from '@mantine/core';
import { createFileRoute, Link, type LinkProps, Outlet, useMatchRoute } from '@tanstack/react-router';

const SETTINGS_PAGES: { to: NonNullable<LinkProps['to']>; label: string }[] = [
  { to: '/settings/profile', label: 'Profile' },
  { to: '/settings/account', label: 'Account' },
  { to: '/settings/app-management', label: 'App management' },
  { to: '/settings/exports', label: 'Exports' },
  { to: '/settings/fulfillment', label: 'Fulfillment' },
];

export const Route = createFileRoute('/_app/settings/_layout')({
  component: SettingsLayout,
});

function SettingsLayout() {
  const matchRoute = useMatchRoute();
  return (
    <Stack gap="lg" maw={960}>
      <Title order={1}>Settings</Title>
      <Group gap="xs" component="nav" aria-label="Settings pages" wrap="wrap">
        {SETTINGS_PAGES.map((page) => {
          const active = Boolean(matchRoute({ to: page.to }));
          return (
            <Button
              key={page.to}
              component={Link}
              to={page.to}
              variant={active ? 'light' : 'subtle'}
              color={active ? undefined : 'gray'}
              aria-current={active ? 'page' : undefined}
            >
              {page.label}
            </Button>
          );
        })}
      </Group>
      <Outlet />
    </Stack>
  );
}
