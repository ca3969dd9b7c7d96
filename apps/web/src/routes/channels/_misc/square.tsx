import { Button, Center, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, useLocation } from '@tanstack/react-router';
import { useEffect } from 'react';
import { z } from 'zod';
import { useAuth } from '../../../lib/auth.ts';
import { browserLocation } from '../../../lib/browser-location.ts';
import { channelsRest } from '../../_app/channels/-components/channel-api.ts';
import { AuthorizationStep } from '../../_app/oauth/-components/authorization-step.tsx';

// A channel to re-authorise, when there is one; the router may read a numeric id as a number.
const SquareSearch = z.object({
  channelId: z.union([z.string(), z.number()]).transform(String).pipe(z.string().max(64)).optional().catch(undefined),
});

export const Route = createFileRoute('/channels/_misc/square')({
  validateSearch: SquareSearch,
  component: SquarePage,
});

function SquarePage() {
  const auth = useAuth();
  if (!auth.token) return <SignInFirst />;
  return <RedirectToSquare />;
}

/**
 * SPEC §2: asks for Square's authorization URL (store empty, environment `api`, i.e. production hosts)
 * and goes there.
 */
function RedirectToSquare() {
  const { channelId } = Route.useSearch();
  const authorization = useQuery({
    queryKey: ['oauth', 'square', 'redirect-url', channelId ?? null],
    queryFn: () =>
      channelsRest.generateRedirectUrl('square', {
        store: '',
        environment: 'api',
        ...(channelId ? { channelId } : {}),
      }),
    staleTime: 0,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const url = authorization.data?.url;
  useEffect(() => {
    if (url) browserLocation.assign(url);
  }, [url]);
  return <AuthorizationStep provider="square" query={authorization} />;
}

function SignInFirst() {
  const href = useLocation({ select: (location) => location.href });
  return (
    <Center>
      <Paper withBorder radius="md" p="xl" maw={560} w="100%">
        <Stack gap="md">
          <Title order={1} size="h3">
            Connect Square POS
          </Title>
          <Text>Sign in to your Switchyard account first; Square then asks you to allow access to your stores.</Text>
          <Group>
            <Button renderRoot={(props) => <Link {...props} to="/login" search={{ redirect: href }} />}>Sign in</Button>
          </Group>
        </Stack>
      </Paper>
    </Center>
  );
}
