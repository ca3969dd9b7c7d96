import { Alert, Button, Group, PasswordInput, Stack } from '@mantine/core';
import { ACCOUNT_MESSAGES, ChangePasswordInput, FORM_MESSAGES } from '@switchyard/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';

const PasswordForm = ChangePasswordInput.extend({
  repeatPassword: z.string(FORM_MESSAGES.required).min(1, FORM_MESSAGES.required),
}).refine((v) => v.newPassword === v.repeatPassword, {
  path: ['repeatPassword'],
  message: FORM_MESSAGES.passwordsDiffer,
});

export const PASSWORD_CHANGED = 'Your password was changed. You were signed out on your other devices.';

/** Password change with the current password (users.changePassword); other sessions end. */
export function PasswordChangeForm() {
  const trpc = useTRPC();
  // A new key gives a fresh, empty form after a change.
  const [formKey, setFormKey] = useState(0);
  const [changed, setChanged] = useState(false);
  return (
    <SectionCard
      title="Password"
      description="Changing your password signs you out on every other device; this one stays signed in."
    >
      {changed ? (
        <Alert color="teal" variant="light" title="Password changed" role="status">
          {PASSWORD_CHANGED}
        </Alert>
      ) : null}
      <PasswordFields
        key={formKey}
        trpc={trpc}
        onChanging={() => setChanged(false)}
        onChanged={() => {
          setChanged(true);
          setFormKey((key) => key + 1);
        }}
      />
    </SectionCard>
  );
}

interface PasswordFieldsProps {
  trpc: ReturnType<typeof useTRPC>;
  onChanging: () => void;
  onChanged: () => void;
}

function PasswordFields({ trpc, onChanging, onChanged }: PasswordFieldsProps) {
  const form = useZodForm(PasswordForm, { currentPassword: '', newPassword: '', repeatPassword: '' });
  const change = useMutation(
    trpc.users.changePassword.mutationOptions({
      onMutate: onChanging,
      onSuccess: onChanged,
      onError: (error) => {
        if (errorMessage(error) === ACCOUNT_MESSAGES.wrongCurrentPassword) {
          form.setErrors({ currentPassword: ACCOUNT_MESSAGES.wrongCurrentPassword });
        }
      },
    }),
  );
  const message = change.isError ? errorMessage(change.error) : undefined;

  return (
    <form
      noValidate
      aria-label="Change password"
      onSubmit={form.onSubmit(({ currentPassword, newPassword }) => change.mutate({ currentPassword, newPassword }))}
    >
      <Stack gap="md">
        {message && message !== ACCOUNT_MESSAGES.wrongCurrentPassword ? (
          <Alert color="red" variant="light" title="Could not change your password" role="alert">
            {message}
          </Alert>
        ) : null}
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          required
          {...form.inputProps('currentPassword')}
        />
        <PasswordInput label="New password" autoComplete="new-password" required {...form.inputProps('newPassword')} />
        <PasswordInput
          label="Repeat new password"
          autoComplete="new-password"
          required
          {...form.inputProps('repeatPassword')}
        />
        <Group>
          <Button type="submit" loading={change.isPending}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
