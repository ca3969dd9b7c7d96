import { Avatar, Button, Menu, Text, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { displayName, useAuth } from '../../../lib/auth.ts';
import { basicDataOptions } from '../../../lib/basic-data.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { useSignOut } from '../../../lib/use-sign-out.ts';

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word.charAt(0).toUpperCase())
    .join('');
}

/** The header's account area: who is signed in, and sign-out. */
export function AccountMenu() {
  const trpc = useTRPC();
  const auth = useAuth();
  const basic = useQuery(basicDataOptions(trpc));
  const { signOut, pending } = useSignOut();
  const user = basic.data?.user ?? auth.user;
  const name = displayName(user);
  const business = basic.data?.account.business ?? auth.account?.business;

  if (!user) {
    return (
      <Button variant="default" size="xs" onClick={() => void signOut()} loading={pending}>
        Sign out
      </Button>
    );
  }

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label={`Account: ${name}`} style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
          <Avatar radius="xl" size="sm" color="indigo" aria-hidden>
            {initials(name)}
          </Avatar>
          <Text size="sm" fw={500} visibleFrom="xs">
            {name}
          </Text>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          <Text size="sm" fw={500} c="bright">
            {name}
          </Text>
          <Text size="xs" c="dimmed">
            {user.email}
          </Text>
          {business ? (
            <Text size="xs" c="dimmed">
              {business}
            </Text>
          ) : null}
        </Menu.Label>
        <Menu.Divider />
        <Menu.Item onClick={() => void signOut()} disabled={pending}>
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
