import { Anchor, Button, Container, Group, type MantineSize, Stack } from '@mantine/core';
import { UNAUTHORIZED_MESSAGE_MS } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { Link, Outlet, useLocation } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { clearSession, getValidToken, hydrateSession, useAuth } from '../lib/auth.ts';
import { basicDataOptions, HANDLES_UNAUTHORIZED } from '../lib/basic-data.ts';
import { errorMessage, isUnauthorized } from '../lib/errors.ts';
import { notify } from '../lib/toast.ts';
import type { Trpc } from '../lib/trpc.ts';
import { UNAUTHORIZED_TOAST_ID } from '../lib/unauthorized.ts';
import { ColorModeSwitch } from './color-mode-switch.tsx';
import { RenderErrorBoundary } from './render-error.tsx';

/**
 * SPEC §2 setup and misc routes load the basic data when signed in, but sign-in is not required. A
 * `beforeLoad` for their layout: a session the server no longer accepts is forgotten and the page goes on
 * signed out.
 */
export async function loadBasicDataWhenSignedIn({
  context,
  preload,
}: {
  context: { queryClient: QueryClient; trpc: Trpc };
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
    if (!isUnauthorized(error)) return;
    clearSession();
    context.queryClient.clear();
    if (!preload) notify.error(errorMessage(error), { id: UNAUTHORIZED_TOAST_ID, duration: UNAUTHORIZED_MESSAGE_MS });
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
