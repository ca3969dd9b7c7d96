import { Button, Text } from '@mantine/core';
import { createFileRoute } from '@tanstack/react-router';
import { loadBasicDataWhenSignedIn, OutsideFrame } from '../../components/outside-frame.tsx';
import { useAuth } from '../../lib/auth.ts';
import { useSignOut } from '../../lib/use-sign-out.ts';

/** SPEC §2 setup routes: they load the basic data when signed in, but sign-in is not required. */
export const Route = createFileRoute('/subscription')({
  beforeLoad: loadBasicDataWhenSignedIn,
  component: SetupLayout,
});

/** The frame of the setup screens: the brand, colour mode, and who is signed in. */
function SetupLayout() {
  const auth = useAuth();
  const { signOut, pending } = useSignOut();
  return (
    <OutsideFrame
      size="lg"
      signedIn={
        <>
          {auth.account ? (
            <Text size="sm" c="dimmed" visibleFrom="xs">
              {auth.account.business}
            </Text>
          ) : null}
          <Button variant="default" size="xs" onClick={() => void signOut()} loading={pending}>
            Sign out
          </Button>
        </>
      }
    />
  );
}
