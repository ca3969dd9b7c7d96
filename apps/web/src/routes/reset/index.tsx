import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { EmailInput } from '@switchyard/contracts';
import { useMutation } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { AuthPage } from '../../components/auth-page.tsx';
import { api } from '../../lib/api.ts';
import { errorMessage } from '../../lib/errors.ts';
import { useZodForm } from '../../lib/use-zod-form.ts';

export const Route = createFileRoute('/reset/')({
  component: ResetRequestPage,
});

function ResetRequestPage() {
  const form = useZodForm(EmailInput, { email: '' });
  const request = useMutation({
    mutationFn: (email: string) => api.frontend.post<{ ok: true }>('reset/getCode', { email }),
  });

  return (
    <AuthPage
      title="Reset your password"
      description="Enter the e-mail address of your account and we will send you a link to choose a new password."
      footer={
        <Text size="sm">
          Remembered it?{' '}
          <Anchor component={Link} to="/login">
            Sign in
          </Anchor>
        </Text>
      }
    >
      {request.isSuccess ? (
        <Stack gap="md">
          <Alert color="blue" variant="light" title="Check your inbox" role="status">
            If an account uses this address, we sent a link to reset the password. The link expires after a while; ask
            again if it does.
          </Alert>
          <Button variant="default" onClick={() => request.reset()}>
            Use another address
          </Button>
        </Stack>
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit((data) => request.mutate(data.email))}
          aria-label="Reset your password"
        >
          <Stack gap="md">
            {request.isError ? (
              <Alert color="red" variant="light" title="Could not send the link" role="alert">
                {errorMessage(request.error)}
              </Alert>
            ) : null}
            <TextInput
              label="E-mail address"
              type="email"
              autoComplete="email"
              required
              {...form.inputProps('email')}
            />
            <Button type="submit" loading={request.isPending}>
              Send the reset link
            </Button>
          </Stack>
        </form>
      )}
    </AuthPage>
  );
}
