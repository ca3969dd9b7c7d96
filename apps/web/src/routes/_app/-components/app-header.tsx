import { ActionIcon, Anchor, Burger, Group, Tooltip } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ColorModeSwitch } from '../../../components/color-mode-switch.tsx';

export interface AppHeaderProps {
  navbarId: string;
  navbarOpen: boolean;
  /** `burger` where the navbar covers the page (narrow screens), `sidebar` where it sits beside it. */
  toggle: 'burger' | 'sidebar';
  onToggleNavbar: () => void;
  /** The account area: who is signed in, and sign-out. */
  accountSlot?: ReactNode;
}

export function AppHeader({ navbarId, navbarOpen, toggle, onToggleNavbar, accountSlot }: AppHeaderProps) {
  const sidebarLabel = navbarOpen ? 'Hide menu' : 'Show menu';
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        {toggle === 'burger' ? (
          <Burger
            opened={navbarOpen}
            onClick={onToggleNavbar}
            size="sm"
            aria-label="Toggle navigation"
            aria-expanded={navbarOpen}
            aria-controls={navbarId}
          />
        ) : (
          <Tooltip label={sidebarLabel} openDelay={400}>
            <ActionIcon
              variant="subtle"
              color="gray"
              size="lg"
              onClick={onToggleNavbar}
              aria-label={sidebarLabel}
              aria-expanded={navbarOpen}
              aria-controls={navbarId}
            >
              <SidebarIcon />
            </ActionIcon>
          </Tooltip>
        )}
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

/** A window with a panel on its left: the sidebar, whichever way it is about to go. */
function SidebarIcon() {
  return (
    <svg
      width={20}
      height={20}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <path d="M9 4v16" />
    </svg>
  );
}
