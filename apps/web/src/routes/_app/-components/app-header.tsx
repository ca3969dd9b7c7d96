import { Anchor, Burger, Group } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ColorModeSwitch } from '../../../components/color-mode-switch.tsx';

export interface AppHeaderProps {
  navbarId: string;
  navbarOpen: boolean;
  /** Only where the navbar can collapse (narrow screens); without it the header shows no toggle. */
  onToggleNavbar?: () => void;
  /** The account area: who is signed in, and sign-out. */
  accountSlot?: ReactNode;
}

export function AppHeader({ navbarId, navbarOpen, onToggleNavbar, accountSlot }: AppHeaderProps) {
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        {onToggleNavbar ? (
          <Burger
            opened={navbarOpen}
            onClick={onToggleNavbar}
            size="sm"
            aria-label="Toggle navigation"
            aria-expanded={navbarOpen}
            aria-controls={navbarId}
          />
        ) : null}
        <Anchor component={Link} to="/dashboard" fw={700} fz="lg" c="inherit" underline="never">
          Switchyard
        </Anchor>
      </Group>
      <Group gap="sm" wrap="nowrap">
        <ColorModeSwitch />
        {accountSlot}
      </Group>
    </Group>
  );
}
