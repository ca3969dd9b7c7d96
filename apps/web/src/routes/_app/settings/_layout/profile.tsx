import { Alert, Skeleton, Stack } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { z } from 'zod';
import { QueryError } from '../../../../components/query-error.tsx';
import { basicDataOptions } from '../../../../lib/basic-data.ts';
import { useReplaceCurrentUser } from '../../../../lib/current-user.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { EmailChangeForm } from '../-components/email-change-form.tsx';
import { PasswordChangeForm } from '../-components/password-form.tsx';
import { ProfileForm } from '../-components/profile-form.tsx';

// The link of an e-mail change comes back here with its code.
const ProfileSearch = z.object({ emailChange: z.string().min(1).max(200).optional().catch(undefined) });

export const Route = createFileRoute('/_app/settings/_layout/profile')({
  validateSearch: ProfileSearch,
  component: ProfilePage,
});

function ProfilePage() {
  const trpc = useTRPC();
  const basic = useQuery(basicDataOptions(trpc));
  const { emailChange } = Route.useSearch();

  return (
    <Stack gap="lg">
      <EmailChangeConfirmation code={emailChange} />
      {basic.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading your profile">
          <Skeleton height={180} />
          <Skeleton height={180} />
        </Stack>
      ) : basic.isError ? (
        <QueryError
          title="Could not load your profile"
          error={basic.error}
          onRetry={basic.refetch}
          retrying={basic.isFetching}
        />
      ) : (
        <>
          <ProfileForm user={basic.data.user} />
          <EmailChangeForm key={basic.data.user.email} user={basic.data.user} />
          <PasswordChangeForm />
        </>
      )}
    </Stack>
  );
}

/** Follows an e-mail change link once (users.confirmEmailChange), then drops the code from the address. */
function EmailChangeConfirmation({ code }: { code: string | undefined }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const replaceUser = useReplaceCurrentUser();
  const confirm = useMutation(trpc.users.confirmEmailChange.mutationOptions({ onSuccess: replaceUser }));
  const { mutate } = confirm;
  const tried = useRef<string>(undefined);

  useEffect(() => {
    if (!code || tried.current === code) return;
    tried.current = code;
    mutate({ code });
    // A code is single use: reloading the page must not send it again.
    void navigate({ to: '/settings/profile', search: {}, replace: true });
  }, [code, mutate, navigate]);

  if (confirm.isPending) {
    return (
      <Alert variant="light" title="Confirming your new e-mail address…" role="status">
        One moment.
      </Alert>
    );
  }
  if (confirm.isError) {
    return (
      <Alert color="red" variant="light" title="Your e-mail address was not changed" role="alert">
        {errorMessage(confirm.error)} You can ask for a new link below.
      </Alert>
    );
  }
  if (confirm.isSuccess) {
    return (
      <Alert color="teal" variant="light" title="E-mail address changed" role="status">
        You now sign in with {confirm.data.email}.
      </Alert>
    );
  }
  return null;
}
