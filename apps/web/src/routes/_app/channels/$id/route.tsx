import { Alert, Anchor, Button, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { CHANNEL_LABELS, type ChannelDetail } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, type LinkProps, Outlet, useMatchRoute } from '@tanstack/react-router';
import { QueryError } from '../../../../components/query-error.tsx';
import { useTRPC } from '../../../../lib/trpc.ts';
import { channelOptions } from '../-components/channel-api.ts';
import { ChannelStatusBadge } from '../-components/channel-status.tsx';
import { authorizeLink } from '../-components/connect-links.ts';
import { SyncActions } from '../-components/sync-actions.tsx';

export const Route = createFileRoute('/_app/channels/$id')({
  component: ChannelLayout,
});

const PAGES: { to: NonNullable<LinkProps['to']>; label: string }[] = [
  { to: '/channels/$id/channel-settings', label: 'Channel' },
  { to: '/channels/$id/product-settings', label: 'Products' },
  { to: '/channels/$id/shipping-settings', label: 'Shipping' },
  { to: '/channels/$id/advanced', label: 'Advanced' },
];

/** A channel's settings pages: its name and state, and a sub-nav between the four sections. */
function ChannelLayout() {
  const { id } = Route.useParams();
  const trpc = useTRPC();
  const channel = useQuery(channelOptions(trpc, id));
  const matchRoute = useMatchRoute();

  return (
    <Stack gap="lg" maw={1100}>
      <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/channels" />}>
        ← Channels
      </Anchor>
      {channel.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the channel">
          <Skeleton height={36} width="40%" />
          <Skeleton height={28} width="60%" />
          <Skeleton height={240} />
        </Stack>
      ) : channel.isError ? (
        <QueryError
          title="Could not load this channel"
          error={channel.error}
          onRetry={channel.refetch}
          retrying={channel.isFetching}
        />
      ) : (
        <>
          <ChannelHeading channel={channel.data} />
          <Group gap="xs" component="nav" aria-label="Channel settings pages" wrap="wrap">
            {PAGES.map((page) => {
              const active = Boolean(matchRoute({ to: page.to, params: { id } }));
              return (
                <Button
                  key={page.to}
                  renderRoot={(props) => <Link {...props} to={page.to} params={{ id }} />}
                  variant={active ? 'light' : 'subtle'}
                  color={active ? undefined : 'gray'}
                  aria-current={active ? 'page' : undefined}
                >
                  {page.label}
                </Button>
              );
            })}
          </Group>
          <Outlet />
        </>
      )}
    </Stack>
  );
}

function ChannelHeading({ channel }: { channel: ChannelDetail }) {
  return (
    <Stack gap="sm">
      <Group gap="sm" align="center" wrap="wrap">
        <Title order={1}>{channel.name}</Title>
        <ChannelStatusBadge status={channel.status} />
      </Group>
      <Text c="dimmed" size="sm">
        {CHANNEL_LABELS[channel.type]}
        {channel.externalId ? ` · ${channel.externalId}` : ''}
      </Text>
      <SyncActions channel={channel} />
      {channel.status !== 'connected' ? (
        <Alert color={channel.status === 'error' ? 'red' : 'orange'} variant="light" role="status">
          <Group justify="space-between" gap="sm" wrap="wrap">
            <Text size="sm">
              {channel.statusMessage ??
                (channel.status === 'pending'
                  ? 'This channel is not connected yet.'
                  : 'Switchyard cannot reach this channel. Re-authorise it to carry on.')}
            </Text>
            <Button size="xs" renderRoot={(props) => <Link {...props} {...authorizeLink(channel)} />}>
              {channel.status === 'pending' ? 'Finish connecting' : 'Re-authorise'}
            </Button>
          </Group>
        </Alert>
      ) : null}
    </Stack>
  );
}
