import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { LoginInput, type LoginOutput } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, redirect, useRouter } from '@tanstack/react-router';
import { z } from 'zod';
import { AuthPage } from '../../components/auth-page.tsx';
import { api } from '../../lib/api.ts';
import { isSignedIn, signIn } from '../../lib/auth.ts';
import { HANDLES_UNAUTHORIZED } from '../../lib/basic-data.ts';
import { errorMessage } from '../../lib/errors.ts';
import { safeRedirect } from '../../lib/safe-redirect.ts';
import { useZodForm } from '../../lib/use-zod-form.ts';

// SPEC §2: optional redirect (the address to return to) and service.
const LoginSearch = z.object({
  redirect: z.string().max(2000).optional().catch(undefined),
  service: z.string().max(200).optional().catch(undefined),
});

export const Route = createFileRoute('/login/')({
  validateSearch: LoginSearch,
  beforeLoad: () => {
    if (isSignedIn()) throw redirect({ to: '/dashboard', replace: true });
  },
  component: LoginPage,
});

function LoginPage() {
  const search = Route.useSearch();
  const router = useRouter();
  const queryClient = useQueryClient();
  const form = useZodForm(LoginInput, { email: '', password: '' });

  const login = useMutation({
    mutationFn: (input: LoginInput) => api.frontend.post<LoginOutput>('login', input),
    // A 401 here is "wrong e-mail address or password", not an expired session.
    meta: HANDLES_UNAUTHORIZED,
    onSuccess: async (output) => {
      // Nothing cached for another session may leak into this one.
      queryClient.clear();
      signIn(output);
      await router.navigate({ href: safeRedirect(search.redirect), replace: true });
    },
  });

  return (
    <AuthPage
      title="Sign in"
      description="Sign in to your Switchyard back office."
      footer={
        <Text size="sm">
          No account yet?{' '}
          <Anchor component={Link} to="/register">
            Create an account
          </Anchor>
        </Text>
      }
    >
      <form noValidate onSubmit={form.onSubmit((data) => login.mutate(data))} aria-label="Sign in">
        <Stack gap="md">
          {login.isError ? (
            <Alert color="red" variant="light" title="Could not sign in" role="alert">
              {errorMessage(login.error)}
            </Alert>
          ) : null}
          <TextInput label="E-mail address" type="email" autoComplete="email" required {...form.inputProps('email')} />
          <PasswordInput label="Password" autoComplete="current-password" required {...form.inputProps('password')} />
          <Anchor component={Link} to="/reset" size="sm" style={{ alignSelf: 'flex-end' }}>
            Forgot your password?
          </Anchor>
          <Button type="submit" loading={login.isPending} fullWidth>
            Sign in
          </Button>
        </Stack>
      </form>
    </AuthPage>
  );
}
