import { Anchor, Button, Container, Group, type MantineSize, Stack } from '@mantine/core';
import type { QueryClient } from '@tanstack/react-query';
import { Link, Outlet, useLocation } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { getValidToken, hydrateSession, useAuth } from '../lib/auth.ts';
import { basicDataOptions, HANDLES_UNAUTHORIZED, onBasicDataFailure } from '../lib/basic-data.ts';
import { isUnauthorized } from '../lib/errors.ts';
import type { Trpc } from '../lib/trpc.ts';
import { ColorModeSwitch } from './color-mode-switch.tsx';
import { RenderErrorBoundary } from './render-error.tsx';

/**
 * SPEC §2 setup and misc routes load the basic data when signed in, but sign-in is not required. A
 * `beforeLoad` for their layout. A failed load is handled as in the app area (SPEC §8): the server message;
 * a session the server no longer accepts goes to sign in and back; any other error lets the page render.
 */
export async function loadBasicDataWhenSignedIn({
  context,
  location,
  preload,
}: {
  context: { queryClient: QueryClient; trpc: Trpc };
  location: { href: string };
  preload: boolean;
}) {
  if (!getValidToken()) return;
  try {
    const data = await context.queryClient.ensureQueryData({
      ...basicDataOptions(context.trpc),
      retry: false,
      meta: HANDLES_UNAUTHORIZED,
    });
    hydrateSession(data);
  } catch (error) {
    // The queries cached under the session the server refused are not the next visitor's.
    if (isUnauthorized(error)) context.queryClient.clear();
    onBasicDataFailure(error, { href: location.href, preload });
  }
}

/**
 * The frame of the pages outside the app shell (setup and misc routes): the brand, what a signed-in
 * visitor can do (`signedIn`), Sign in otherwise, and the colour mode.
 */
export function OutsideFrame({ size, signedIn }: { size: MantineSize; signedIn: ReactNode }) {
  const auth = useAuth();
  const href = useLocation({ select: (location) => location.href });
  return (
    <Container size={size} py="lg" component="main">
      <Stack gap="xl">
        <Group justify="space-between" wrap="nowrap">
          <Anchor component={Link} to="/" fw={700} fz="lg" c="inherit" underline="never">
            Switchyard
          </Anchor>
          <Group gap="sm" wrap="nowrap">
            {auth.token ? (
              signedIn
            ) : (
              <Button
                renderRoot={(props) => <Link {...props} to="/login" search={{ redirect: href }} />}
                variant="default"
                size="xs"
              >
                Sign in
              </Button>
            )}
            <ColorModeSwitch />
          </Group>
        </Group>
        <RenderErrorBoundary resetKey={href}>
          <Outlet />
        </RenderErrorBoundary>
      </Stack>
    </Container>
  );
}
