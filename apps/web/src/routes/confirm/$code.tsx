import { Alert, Button, Center, Group, Loader, Stack, Text } from '@mantine/core';
import { AUTH_MESSAGES, MESSAGES } from '@switchyard/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useEffect } from 'react';
import { AuthPage } from '../../components/auth-page.tsx';
import { errorMessage } from '../../lib/errors.ts';
import { notify } from '../../lib/toast.ts';
import { useTRPC, useTRPCClient } from '../../lib/trpc.ts';

/** Shown when the check says the code is not (or no longer) good; the server uses the same words. */

export const Route = createFileRoute('/confirm/$code')({
  component: ConfirmPage,
});

const CONFIRMED_TOAST_ID = 'account-confirmed';

function ConfirmPage() {
  const { code } = Route.useParams();
  const client = useTRPCClient();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const trpc = useTRPC();

  // One query for check-then-confirm: the cache runs it once per code, even when the page mounts twice.
  const confirmation = useQuery({
    queryKey: ['confirm-registration', code],
    queryFn: async () => {
      const { valid } = await client.auth.checkConfirmationCode.query({ code });
      if (!valid) throw new Error(AUTH_MESSAGES.invalidConfirmation);
      return client.auth.confirmRegistration.mutate({ code });
    },
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

  useEffect(() => {
    if (!confirmation.isSuccess) return;
    // A signed-in session's cached account still says "created".
    queryClient.removeQueries({ queryKey: trpc.hydration.getBasicData.queryKey() });
    notify.success(MESSAGES.accountConfirmed, { id: CONFIRMED_TOAST_ID });
    void navigate({ to: '/login', replace: true });
  }, [confirmation.isSuccess, navigate, queryClient, trpc]);

  if (confirmation.isError) {
    return (
      <AuthPage title="We could not confirm your account">
        <Stack gap="md">
          <Alert color="red" variant="light" title="Confirmation failed" role="alert">
            {errorMessage(confirmation.error)}
          </Alert>
          <Text size="sm">
            Confirmation links work once and expire after a while. Ask for a new e-mail, or sign in if your account is
            already confirmed.
          </Text>
          <Group grow>
            <Button component={Link} to="/confirmation">
              Send a new e-mail
            </Button>
            <Button component={Link} to="/login" variant="default">
              Sign in
            </Button>
          </Group>
        </Stack>
      </AuthPage>
    );
  }

  return (
    <AuthPage title="Confirming your account">
      <Center py="md">
        <Stack align="center" gap="sm">
          <Loader role="status" aria-label="Confirming your account" />
          <Text c="dimmed" size="sm">
            One moment…
          </Text>
        </Stack>
      </Center>
    </AuthPage>
  );
}
