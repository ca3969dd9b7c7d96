import { Alert, Button, Group, Stack, TextInput } from '@mantine/core';
import { type PublicUser, UpdateProfileInput } from '@switchyard/contracts';
import { useMutation } from '@tanstack/react-query';
import { SectionCard } from '../../../../components/section-card.tsx';
import { useReplaceCurrentUser } from '../../../../lib/current-user.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';

/** Name and phone (users.updateProfile). */
export function ProfileForm({ user }: { user: PublicUser }) {
  const trpc = useTRPC();
  const replaceUser = useReplaceCurrentUser();
  const form = useZodForm(UpdateProfileInput, {
    firstname: user.firstname,
    lastname: user.lastname,
    phone: user.phone,
  });
  const update = useMutation(
    trpc.users.updateProfile.mutationOptions({
      onSuccess: (updated) => {
        replaceUser(updated);
        notify.success('Your profile was saved.');
      },
    }),
  );

  return (
    <SectionCard title="Your details" description="Your name and phone number, as your team sees them.">
      <form noValidate aria-label="Your details" onSubmit={form.onSubmit((data) => update.mutate(data))}>
        <Stack gap="md">
          {update.isError ? (
            <Alert color="red" variant="light" title="Could not save your details" role="alert">
              {errorMessage(update.error)}
            </Alert>
          ) : null}
          <Group grow align="flex-start" wrap="wrap">
            <TextInput label="First name" autoComplete="given-name" required {...form.inputProps('firstname')} />
            <TextInput label="Last name" autoComplete="family-name" required {...form.inputProps('lastname')} />
          </Group>
          <TextInput label="Phone" type="tel" autoComplete="tel" required {...form.inputProps('phone')} />
          <Group>
            <Button type="submit" loading={update.isPending}>
              Save details
            </Button>
          </Group>
        </Stack>
      </form>
    </SectionCard>
  );
}
