import { Alert, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { ACCOUNT_MESSAGES, type PublicUser, RequestEmailChangeInput } from '@switchyard/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';

/** A new e-mail address counts only once the link sent to it is followed (users.requestEmailChange). */
export function EmailChangeForm({ user }: { user: PublicUser }) {
  const trpc = useTRPC();
  const [sentTo, setSentTo] = useState<string>();
  const [formKey, setFormKey] = useState(0);
  const form = useZodForm(RequestEmailChangeInput, { newEmail: '', password: '' });
  const request = useMutation(
    trpc.users.requestEmailChange.mutationOptions({
      onSuccess: (result) => {
        setSentTo(result.newEmail);
        setFormKey((key) => key + 1);
      },
      onError: (error) => {
        const message = errorMessage(error);
        if (message === ACCOUNT_MESSAGES.wrongCurrentPassword) form.setErrors({ password: message });
        else if (message === ACCOUNT_MESSAGES.sameEmail) form.setErrors({ newEmail: message });
      },
    }),
  );
  const message = request.isError ? errorMessage(request.error) : undefined;
  const onField = message === ACCOUNT_MESSAGES.wrongCurrentPassword || message === ACCOUNT_MESSAGES.sameEmail;

  return (
    <SectionCard
      title="E-mail address"
      description={
        <>
          You sign in with <strong>{user.email}</strong>. A new address is used only after you follow the link we send
          to it.
        </>
      }
    >
      {sentTo ? (
        <Alert color="teal" variant="light" title="Check your inbox" role="status">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">
              We sent a confirmation link to {sentTo}. Open it to start using that address; until then you keep signing
              in with {user.email}.
            </Text>
            <Button size="xs" variant="default" onClick={() => setSentTo(undefined)}>
              Use another address
            </Button>
          </Stack>
        </Alert>
      ) : (
        <form
          key={formKey}
          noValidate
          aria-label="Change e-mail address"
          onSubmit={form.onSubmit((data) => request.mutate(data))}
        >
          <Stack gap="md">
            {message && !onField ? (
              <Alert color="red" variant="light" title="Could not change your e-mail address" role="alert">
                {message}
              </Alert>
            ) : null}
            <TextInput
              label="New e-mail address"
              type="email"
              autoComplete="email"
              required
              {...form.inputProps('newEmail')}
            />
            <PasswordInput
              label="Current password"
              autoComplete="current-password"
              required
              {...form.inputProps('password')}
            />
            <Group>
              <Button type="submit" loading={request.isPending}>
                Send confirmation link
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </SectionCard>
  );
}
