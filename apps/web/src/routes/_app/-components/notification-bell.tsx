import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Divider,
  Group,
  Indicator,
  Popover,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { NOTIFICATION_RECENT_COUNT, type Notification } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { errorMessage } from '../../../lib/errors.ts';
import {
  notificationListOptions,
  refreshNotifications,
  timeAgo,
  unreadCountOptions,
} from '../../../lib/notifications.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { NotificationTypeBadge } from './notification-type-badge.tsx';

function BellIcon() {
  return (
    <svg
      width="20"
      height="20"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      aria-hidden="true"
    >
      <path d="M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9" strokeLinecap="round" strokeLinejoin="round" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/** The header's bell: the unread count, kept live, and the most recent notifications in a dropdown. */
export function NotificationBell() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [opened, setOpened] = useState(false);
  const count = useQuery(unreadCountOptions(trpc));
  const recent = useQuery({
    ...notificationListOptions(trpc, { limit: NOTIFICATION_RECENT_COUNT, offset: 0 }, opened),
    enabled: opened,
  });
  const onError = (error: unknown) => notify.error(errorMessage(error));
  const markRead = useMutation(
    trpc.notifications.markRead.mutationOptions({
      onSuccess: () => refreshNotifications(queryClient, trpc),
      onError,
    }),
  );
  const markAll = useMutation(
    trpc.notifications.markAllRead.mutationOptions({
      onSuccess: () => refreshNotifications(queryClient, trpc),
      onError,
    }),
  );
  const unread = count.data?.unread ?? 0;
  const label = unread === 0 ? 'Notifications' : `Notifications: ${unread} unread`;

  const open = (n: Notification) => {
    setOpened(false);
    if (!n.readAt) markRead.mutate({ ids: [n.id] });
    void navigate({ href: n.link });
  };

  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width={380} shadow="md" withinPortal trapFocus>
      <Popover.Target>
        <Indicator
          label={unread > 99 ? '99+' : unread}
          size={18}
          color="red"
          disabled={unread === 0}
          offset={4}
          aria-hidden={false}
        >
          <ActionIcon
            variant="subtle"
            color="gray"
            size="lg"
            aria-label={label}
            aria-haspopup="dialog"
            aria-expanded={opened}
            onClick={() => setOpened((o) => !o)}
          >
            <BellIcon />
          </ActionIcon>
        </Indicator>
      </Popover.Target>
      <Popover.Dropdown p={0} aria-label="Recent notifications">
        <Group justify="space-between" px="md" py="xs">
          <Text fw={600} size="sm">
            Notifications
          </Text>
          <Button
            variant="subtle"
            size="compact-xs"
            onClick={() => markAll.mutate()}
            loading={markAll.isPending}
            disabled={unread === 0}
          >
            Mark all read
          </Button>
        </Group>
        <Divider />
        <Stack gap={0} mah={420} style={{ overflowY: 'auto' }}>
          {recent.isPending ? (
            <Text size="sm" c="dimmed" p="md" role="status">
              Loading notifications…
            </Text>
          ) : recent.isError ? (
            <Text size="sm" c="red" p="md" role="alert">
              Could not load notifications: {errorMessage(recent.error)}
            </Text>
          ) : recent.data.results.length === 0 ? (
            <Text size="sm" c="dimmed" p="md">
              You are all caught up. Failed syncs, flagged orders, low stock and more show here.
            </Text>
          ) : (
            recent.data.results.map((n) => (
              <UnstyledButton
                key={n.id}
                onClick={() => open(n)}
                px="md"
                py="xs"
                style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
                aria-label={`${n.readAt ? '' : 'Unread: '}${n.title}`}
              >
                <Group gap={6} wrap="nowrap" align="center">
                  {n.readAt ? null : <Badge size="xs" circle color="blue" aria-hidden />}
                  <Text size="sm" fw={n.readAt ? 400 : 600} lineClamp={1}>
                    {n.title}
                  </Text>
                </Group>
                <Text size="xs" c="dimmed" lineClamp={2}>
                  {n.body}
                </Text>
                <Group gap={6}>
                  <NotificationTypeBadge type={n.type} />
                  <Text size="xs" c="dimmed">
                    {timeAgo(n.lastAt)}
                    {n.count > 1 ? ` · ${n.count} times` : ''}
                  </Text>
                </Group>
              </UnstyledButton>
            ))
          )}
        </Stack>
        <Divider />
        <Group justify="center" py="xs">
          <Anchor component={Link} to="/notifications" size="sm" onClick={() => setOpened(false)}>
            See all notifications
          </Anchor>
        </Group>
      </Popover.Dropdown>
    </Popover>
  );
}
