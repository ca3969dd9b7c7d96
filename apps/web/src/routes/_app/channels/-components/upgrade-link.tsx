import { Anchor } from '@mantine/core';
import { Link } from '@tanstack/react-router';

/** Where a plan limit is lifted (SPEC §2: the account page with `upgrade`). */
export function UpgradeLink() {
  return (
    <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/settings/account" search={{ upgrade: true }} />}>
      Upgrade your plan
    </Anchor>
  );
}
