import {
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  Skeleton,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { type Notification, NotificationsSearch, PAGE_SIZE_OPTIONS } from '@switchyard/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { type KeyboardEvent, useRef } from 'react';
import { Pager } from '../../../components/pager.tsx';
import { QueryError } from '../../../components/query-error.tsx';
import { errorMessage } from '../../../lib/errors.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { notificationListOptions, refreshNotifications, timeAgo } from '../../../lib/notifications.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { NotificationTypeBadge } from '../-components/notification-type-badge.tsx';
import { NotificationSettingsCard } from './-components/notification-settings.tsx';

const SEARCH_DEFAULTS = NotificationsSearch.parse({});

export const Route = createFileRoute('/_app/notifications/')({
  validateSearch: NotificationsSearch,
  search: { middlewares: [stripSearchParams(SEARCH_DEFAULTS)] },
  loaderDeps: ({ search }) => search,
  loader: ({ context: { queryClient, trpc }, deps }) => {
    void queryClient.prefetchQuery(notificationListOptions(trpc, deps));
  },
  component: NotificationsPage,
});

function NotificationsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const list = useQuery({ ...notificationListOptions(trpc, search), placeholderData: keepPreviousData });
  const listRef = useRef<HTMLDivElement>(null);
  const onError = (error: unknown) => notify.error(errorMessage(error));
  const markRead = useMutation(
    trpc.notifications.markRead.mutationOptions({ onSuccess: () => refreshNotifications(queryClient, trpc), onError }),
  );
  const markAll = useMutation(
    trpc.notifications.markAllRead.mutationOptions({
      onSuccess: (result) => {
        notify.success(
          result.updated === 1 ? '1 notification marked read' : `${result.updated} notifications marked read`,
        );
        return refreshNotifications(queryClient, trpc);
      },
      onError,
    }),
  );
  const unread = list.data?.unread ?? 0;

  const open = (n: Notification) => {
    if (!n.readAt) markRead.mutate({ ids: [n.id] });
    void navigate({ href: n.link });
  };

  // Arrow keys (or j/k) move between notifications, Enter opens one, m marks it read.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(listRef.current?.querySelectorAll<HTMLElement>('[data-notification]') ?? [])];
    const index = items.indexOf(document.activeElement as HTMLElement);
    if (index < 0) return;
    const move = (to: number) => {
      event.preventDefault();
      items[Math.max(0, Math.min(items.length - 1, to))]?.focus();
    };
    if (event.key === 'ArrowDown' || event.key === 'j') move(index + 1);
    else if (event.key === 'ArrowUp' || event.key === 'k') move(index - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(items.length - 1);
    else if (event.key === 'm') {
      const n = list.data?.results[index];
      if (n && !n.readAt) markRead.mutate({ ids: [n.id] });
    }
  };

  return (
    <Stack gap="lg" maw={960}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Notifications</Title>
          <Text c="dimmed" size="sm">
            Failed syncs, flagged and waiting orders, stock running out, disconnected channels, payments and returns:
            each links to where it is handled.
          </Text>
        </Stack>
        <Button variant="default" onClick={() => markAll.mutate()} loading={markAll.isPending} disabled={unread === 0}>
          Mark all read
        </Button>
      </Group>

      <Group gap="md" align="center" wrap="wrap">
        <SegmentedControl
          aria-label="Show"
          value={search.unread ? 'unread' : 'all'}
          onChange={(value) =>
            void navigate({ search: (prev) => ({ ...prev, unread: value === 'unread', offset: 0 }) })
          }
          data={[
            { value: 'all', label: 'All' },
            { value: 'unread', label: `Unread${list.data ? ` (${unread.toLocaleString()})` : ''}` },
          ]}
        />
        <Text size="xs" c="dimmed">
          Keyboard: ↑/↓ or j/k to move, Enter to open, m to mark read.
        </Text>
      </Group>

      {list.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading notifications">
          {[0, 1, 2, 3].map((row) => (
            <Skeleton key={row} height={64} />
          ))}
        </Stack>
      ) : list.isError ? (
        <QueryError
          title="Could not load the notifications"
          error={list.error}
          onRetry={list.refetch}
          retrying={list.isFetching}
        />
      ) : list.data.results.length === 0 ? (
        <Alert variant="light" title={search.unread ? 'Nothing unread' : 'No notifications yet'}>
          {search.unread
            ? 'You have read every notification. Show all to see earlier ones.'
            : 'When a sync fails, an order is flagged or waits too long, stock runs low or out, a channel disconnects, a payment fails or a return comes in, it shows here.'}
        </Alert>
      ) : (
        <Stack gap="sm">
          <Stack
            component="ul"
            ref={listRef}
            gap="xs"
            aria-label="Notifications"
            aria-busy={list.isFetching}
            onKeyDown={onKeyDown}
            style={{ listStyle: 'none', padding: 0, margin: 0 }}
          >
            {list.data.results.map((n) => (
              <NotificationRow
                key={n.id}
                n={n}
                onOpen={() => open(n)}
                onRead={() => markRead.mutate({ ids: [n.id] })}
              />
            ))}
          </Stack>
          <Group justify="space-between" align="center" wrap="wrap" gap="sm">
            <Select
              label="Per page"
              data={PAGE_SIZE_OPTIONS.map(String)}
              value={String(search.limit)}
              allowDeselect={false}
              onChange={(value) => void navigate({ search: (prev) => ({ ...prev, limit: Number(value), offset: 0 }) })}
              w={110}
              size="xs"
            />
            <div style={{ flex: 1 }}>
              <Pager
                label="Notifications"
                total={list.data.total}
                limit={search.limit}
                offset={search.offset}
                onChange={(offset) => void navigate({ search: (prev) => ({ ...prev, offset }) })}
                disabled={list.isFetching && list.isPlaceholderData}
              />
            </div>
          </Group>
        </Stack>
      )}
      <NotificationSettingsCard />
    </Stack>
  );
}

function NotificationRow({ n, onOpen, onRead }: { n: Notification; onOpen: () => void; onRead: () => void }) {
  const unread = !n.readAt;
  return (
    <Paper component="li" withBorder p="sm" radius="md" bg={unread ? 'var(--mantine-color-default-hover)' : undefined}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <UnstyledButton
          data-notification
          onClick={onOpen}
          aria-label={`${unread ? 'Unread: ' : ''}${n.title}`}
          style={{ flex: 1, minWidth: 0 }}
        >
          <Stack gap={2}>
            <Group gap={6} wrap="nowrap">
              {unread ? <Badge size="xs" circle color="blue" aria-hidden /> : null}
              <Text fw={unread ? 700 : 500} size="sm">
                {n.title}
              </Text>
            </Group>
            {/* Unread rows are tinted: their message keeps the text colour, which reads on the tint in both modes. */}
            <Text size="sm" c={unread ? undefined : 'dimmed'}>
              {n.body}
            </Text>
            <Group gap={6}>
              <NotificationTypeBadge type={n.type} />
              <Text size="xs" c="dimmed" title={formatDateTime(n.lastAt.toISOString())}>
                {timeAgo(n.lastAt)}
                {n.count > 1 ? ` · happened ${n.count} times` : ''}
              </Text>
            </Group>
          </Stack>
        </UnstyledButton>
        {unread ? (
          <Button variant="subtle" size="compact-xs" onClick={onRead} aria-label={`Mark read: ${n.title}`}>
            Mark read
          </Button>
        ) : null}
      </Group>
    </Paper>
  );
}
