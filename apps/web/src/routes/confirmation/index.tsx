import { Alert, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { EmailInput } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { z } from 'zod';
import { AuthPage } from '../../components/auth-page.tsx';
import { api } from '../../lib/api.ts';
import { useAuth } from '../../lib/auth.ts';
import { errorMessage } from '../../lib/errors.ts';
import { useTRPC } from '../../lib/trpc.ts';
import { useSignOut } from '../../lib/use-sign-out.ts';
import { useZodForm } from '../../lib/use-zod-form.ts';

const ConfirmationSearch = z.object({ email: z.string().max(254).optional().catch(undefined) });

/** After a send, the button rests this long. */
const RESEND_COOLDOWN_S = 60;

export const Route = createFileRoute('/confirmation/')({
  validateSearch: ConfirmationSearch,
  component: ConfirmationPage,
});

function useCountdown() {
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  const left = until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
  return {
    left,
    start: (seconds: number) => {
      setNow(Date.now());
      setUntil(Date.now() + seconds * 1000);
    },
  };
}

/** A signed-in user whose account is not confirmed yet: go on once confirmed, or sign out. */
function SignedInActions() {
  const queryClient = useQueryClient();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const { signOut, pending } = useSignOut();
  return (
    <Group grow>
      <Button
        variant="default"
        onClick={() => {
          // Read the account again: the cached copy still says "created".
          queryClient.removeQueries({ queryKey: trpc.hydration.getBasicData.queryKey() });
          void navigate({ to: '/dashboard' });
        }}
      >
        I have confirmed it
      </Button>
      <Button variant="subtle" onClick={() => void signOut()} loading={pending}>
        Sign out
      </Button>
    </Group>
  );
}

function ConfirmationPage() {
  const auth = useAuth();
  const { email: knownEmail } = Route.useSearch();
  const form = useZodForm(EmailInput, { email: knownEmail ?? '' });
  const countdown = useCountdown();

  const resend = useMutation({
    mutationFn: (email: string) => api.frontend.post<{ ok: true }>('register/sendConfirmEmail', { email }),
    onSuccess: () => countdown.start(RESEND_COOLDOWN_S),
  });

  const waiting = countdown.left > 0;

  return (
    <AuthPage title="Confirm your e-mail address" description="Your account has been created but is not confirmed yet.">
      <form noValidate onSubmit={form.onSubmit((data) => resend.mutate(data.email))} aria-label="Confirm your e-mail">
        <Stack gap="md">
          {knownEmail ? (
            <Text>
              We sent a confirmation link to{' '}
              <Text span fw={600}>
                {knownEmail}
              </Text>
              . Open it to confirm your account, then sign in.
            </Text>
          ) : (
            <>
              <Text>
                We sent you a confirmation link when you registered. Open it to confirm your account, then sign in.
                Enter your address to get a new link.
              </Text>
              <TextInput
                label="E-mail address"
                type="email"
                autoComplete="email"
                required
                {...form.inputProps('email')}
              />
            </>
          )}
          <Text size="sm" c="dimmed">
            Nothing arrived? Check your spam folder, or send the e-mail again.
          </Text>
          {resend.isError ? (
            <Alert color="red" variant="light" title="Could not send the e-mail" role="alert">
              {errorMessage(resend.error)}
            </Alert>
          ) : null}
          {resend.isSuccess ? (
            <Alert color="green" variant="light" role="status">
              A new confirmation e-mail is on its way.
            </Alert>
          ) : null}
          {knownEmail && form.errors.email ? (
            <Alert color="red" variant="light" role="alert">
              {form.errors.email}
            </Alert>
          ) : null}
          <Button type="submit" loading={resend.isPending} disabled={waiting}>
            {waiting ? `Send the e-mail again (${countdown.left} s)` : 'Send the e-mail again'}
          </Button>
          {auth.token ? (
            <SignedInActions />
          ) : (
            <Button component={Link} to="/login" variant="default">
              Sign in
            </Button>
          )}
        </Stack>
      </form>
    </AuthPage>
  );
}
