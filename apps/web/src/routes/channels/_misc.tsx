import { Button } from '@mantine/core';
import { createFileRoute, Link } from '@tanstack/react-router';
import { loadBasicDataWhenSignedIn, OutsideFrame } from '../../components/outside-frame.tsx';

/** SPEC §2 misc routes (`/channels/square`, `/channels/{platform}/{status}`): sign-in is not required. */
export const Route = createFileRoute('/channels/_misc')({
  beforeLoad: loadBasicDataWhenSignedIn,
  component: MiscLayout,
});

function MiscLayout() {
  return (
    <OutsideFrame
      size="md"
      signedIn={
        <Button component={Link} to="/channels" variant="default" size="xs">
          Channels
        </Button>
      }
    />
  );
}
