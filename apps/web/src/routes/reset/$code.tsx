import { Alert, Anchor, Button, Center, Loader, PasswordInput, Stack, Text } from '@mantine/core';
import { FORM_MESSAGES, MESSAGES, Password } from '@switchyard/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useEffect } from 'react';
import { z } from 'zod';
import { AuthPage } from '../../components/auth-page.tsx';
import { api } from '../../lib/api.ts';
import { errorMessage } from '../../lib/errors.ts';
import { notify } from '../../lib/toast.ts';
import { useZodForm } from '../../lib/use-zod-form.ts';

const PASSWORD_CHANGED = 'Your password has been changed. Sign in with it.';

const NewPassword = z
  .object({ password: Password, password2: z.string().min(1, FORM_MESSAGES.required) })
  .refine((v) => v.password === v.password2, { path: ['password2'], message: FORM_MESSAGES.passwordsDiffer });

export const Route = createFileRoute('/reset/$code')({
  component: ResetPasswordPage,
});

/** A 400 from the reset calls means the code is unknown, used or expired. */
function isInvalidCode(error: unknown): boolean {
  const response = (error as { response?: { status?: number } } | null)?.response;
  return response?.status === 400;
}

const INVALID_CODE_TOAST_ID = 'invalid-reset-code';

function ResetPasswordPage() {
  const { code } = Route.useParams();
  const navigate = useNavigate();
  const form = useZodForm(NewPassword, { password: '', password2: '' });

  const check = useQuery({
    queryKey: ['reset-code', code],
    queryFn: () => api.frontend.post<{ valid: true }>('reset/checkCode', { token: code }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });
  const invalid = check.isError && isInvalidCode(check.error);

  const update = useMutation({
    mutationFn: (password: string) =>
      api.frontend.post<{ ok: true }>('reset/updatePassword', { token: code, password }),
    onSuccess: async () => {
      notify.success(PASSWORD_CHANGED);
      await navigate({ to: '/login', replace: true });
    },
  });
  const updateInvalid = update.isError && isInvalidCode(update.error);

  // SPEC §2/§8: an invalid or expired code is reported and the way goes back to sign-in.
  useEffect(() => {
    if (!invalid && !updateInvalid) return;
    notify.error(MESSAGES.invalidResetCode, { id: INVALID_CODE_TOAST_ID });
    void navigate({ to: '/login', replace: true });
  }, [invalid, updateInvalid, navigate]);

  if (check.isPending || invalid) {
    return (
      <AuthPage title="Choose a new password">
        <Center py="md">
          <Loader role="status" aria-label="Checking the reset link" />
        </Center>
      </AuthPage>
    );
  }

  if (check.isError) {
    return (
      <AuthPage title="Choose a new password">
        <Stack gap="md">
          <Alert color="red" variant="light" title="Could not check the reset link" role="alert">
            {errorMessage(check.error)}
          </Alert>
          <Button onClick={() => void check.refetch()} loading={check.isFetching}>
            Try again
          </Button>
        </Stack>
      </AuthPage>
    );
  }

  return (
    <AuthPage
      title="Choose a new password"
      description="Use at least 10 characters."
      footer={
        <Text size="sm">
          <Anchor component={Link} to="/login">
            Back to sign in
          </Anchor>
        </Text>
      }
    >
      <form
        noValidate
        onSubmit={form.onSubmit((data) => update.mutate(data.password))}
        aria-label="Choose a new password"
      >
        <Stack gap="md">
          {update.isError && !updateInvalid ? (
            <Alert color="red" variant="light" title="Could not change the password" role="alert">
              {errorMessage(update.error)}
            </Alert>
          ) : null}
          <PasswordInput label="New password" autoComplete="new-password" required {...form.inputProps('password')} />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            {...form.inputProps('password2')}
          />
          <Button type="submit" loading={update.isPending}>
            Change password
          </Button>
        </Stack>
      </form>
    </AuthPage>
  );
}
