import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { CHANNEL_LABELS, type ChannelSummary, type ChannelType } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { QueryError } from '../../../components/query-error.tsx';
import { errorMessage } from '../../../lib/errors.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { CatalogSchedule } from './-components/catalog-schedule.tsx';
import { channelListOptions, channelsRest, isPlanLimit } from './-components/channel-api.ts';
import { ChannelStatusBadge } from './-components/channel-status.tsx';
import { authorizeLink } from './-components/connect-links.ts';
import { DisconnectDialog } from './-components/disconnect-dialog.tsx';
import { UpgradeLink } from './-components/upgrade-link.tsx';

export const Route = createFileRoute('/_app/channels/')({
  component: ChannelsPage,
});

function ChannelsPage() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const channels = useQuery(channelListOptions(trpc));
  const [disconnecting, setDisconnecting] = useState<ChannelSummary | null>(null);
  const create = useMutation({
    mutationFn: (type: ChannelType) => channelsRest.create({ type }),
    onSuccess: async (channel) => {
      // The new pending channel is listed (and picked up again by Connect) from now on.
      await queryClient.invalidateQueries(trpc.channels.list.pathFilter());
      await navigate({ to: '/channels/create/$id', params: { id: channel.id } });
    },
  });
  // A connection started before and never finished is picked up again rather than adding another channel
  // (a pending channel takes a place on the plan).
  const connect = (type: ChannelType) => {
    const unfinished = channels.data?.find((c) => c.type === type && c.status === 'pending' && !c.externalId);
    if (unfinished) void navigate({ to: '/channels/create/$id', params: { id: unfinished.id } });
    else create.mutate(type);
  };

  const connectButtons = (
    <Group gap="sm" wrap="wrap">
      <Button onClick={() => connect('shopify')} loading={create.isPending && create.variables === 'shopify'}>
        Connect Shopify
      </Button>
      <Button onClick={() => connect('bigcommerce')} loading={create.isPending && create.variables === 'bigcommerce'}>
        Connect BigCommerce
      </Button>
      <Button renderRoot={(props) => <Link {...props} to="/channels/square" />} variant="light">
        Connect Square POS
      </Button>
    </Group>
  );

  return (
    <Stack gap="lg" maw={1200}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Channels</Title>
          <Text c="dimmed" size="sm">
            The shops you sell through and your Square point of sale. Stock, products and orders move between them.
          </Text>
        </Stack>
        {/* The list is kept for an hour (SPEC §9); this reads it again now. */}
        <Button
          variant="default"
          size="xs"
          onClick={() => void channels.refetch()}
          loading={channels.isFetching && !channels.isPending}
          disabled={channels.isPending}
        >
          Refresh
        </Button>
      </Group>
      {connectButtons}
      {create.isError ? (
        <Alert color="red" variant="light" title="Could not start connecting" role="alert">
          <Stack gap={4}>
            <Text size="sm">{errorMessage(create.error)}</Text>
            {isPlanLimit(create.error) ? <UpgradeLink /> : null}
          </Stack>
        </Alert>
      ) : null}
      {channels.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading channels">
          {[0, 1, 2].map((row) => (
            <Skeleton key={row} height={36} />
          ))}
        </Stack>
      ) : channels.isError ? (
        <QueryError
          title="Could not load your channels"
          error={channels.error}
          onRetry={channels.refetch}
          retrying={channels.isFetching}
        />
      ) : channels.data.length === 0 ? (
        <Alert variant="light" title="No channels yet">
          Connect your Shopify or BigCommerce store and your Square point of sale to start keeping them in step.
        </Alert>
      ) : (
        <ChannelTable channels={channels.data} busy={channels.isFetching} onDisconnect={setDisconnecting} />
      )}
      {channels.data?.some((c) => c.status === 'connected') ? <CatalogSchedule /> : null}
      <DisconnectDialog channel={disconnecting} onClose={() => setDisconnecting(null)} />
    </Stack>
  );
}

function ChannelTable({
  channels,
  busy,
  onDisconnect,
}: {
  channels: ChannelSummary[];
  busy: boolean;
  onDisconnect: (channel: ChannelSummary) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={860}>
      <Table striped highlightOnHover aria-label="Channels" aria-busy={busy} verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Channel</Table.Th>
            <Table.Th scope="col">Provider</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">Last sync</Table.Th>
            <Table.Th scope="col">Errors (24 h)</Table.Th>
            <Table.Th scope="col">
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {channels.map((channel) => (
            <ChannelRow key={channel.id} channel={channel} onDisconnect={() => onDisconnect(channel)} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function ChannelRow({ channel, onDisconnect }: { channel: ChannelSummary; onDisconnect: () => void }) {
  const canConfigure = channel.status !== 'pending';
  const canDisconnect = channel.status !== 'disconnected';
  const authorizeLabel = channel.status === 'pending' ? 'Finish connecting' : 'Re-authorise';
  return (
    <Table.Tr>
      <Table.Td>
        <Stack gap={0}>
          {canConfigure ? (
            <Anchor
              fw={500}
              renderRoot={(props) => (
                <Link {...props} to="/channels/$id/channel-settings" params={{ id: channel.id }} />
              )}
            >
              {channel.name}
            </Anchor>
          ) : (
            <Text fw={500}>{channel.name}</Text>
          )}
          {channel.externalId ? (
            <Text size="xs" c="dimmed">
              {channel.externalId}
            </Text>
          ) : null}
        </Stack>
      </Table.Td>
      <Table.Td>{CHANNEL_LABELS[channel.type]}</Table.Td>
      <Table.Td>
        <Stack gap={2} align="flex-start">
          <ChannelStatusBadge status={channel.status} />
          {channel.statusMessage ? (
            <Text size="xs" c="dimmed" maw={280}>
              {channel.statusMessage}
            </Text>
          ) : null}
        </Stack>
      </Table.Td>
      <Table.Td>
        {channel.lastSyncAt ? (
          <time dateTime={channel.lastSyncAt.toISOString()}>{formatDateTime(channel.lastSyncAt.toISOString())}</time>
        ) : (
          <Text span c="dimmed" size="sm">
            Not yet
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {channel.errorCount > 0 ? (
          <Badge color="red" variant="light" aria-label={`${channel.errorCount} errors in the last 24 hours`}>
            {channel.errorCount}
          </Badge>
        ) : (
          <Text span size="sm" c="dimmed" aria-label="No errors in the last 24 hours">
            0
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Group gap={4} justify="flex-end" wrap="nowrap">
          {canConfigure ? (
            <Button
              size="xs"
              variant="subtle"
              aria-label={`Settings of ${channel.name}`}
              renderRoot={(props) => (
                <Link {...props} to="/channels/$id/channel-settings" params={{ id: channel.id }} />
              )}
            >
              Settings
            </Button>
          ) : null}
          {channel.status !== 'connected' ? (
            <Button
              size="xs"
              variant="light"
              aria-label={`${authorizeLabel} ${channel.name}`}
              renderRoot={(props) => <Link {...props} {...authorizeLink(channel)} />}
            >
              {authorizeLabel}
            </Button>
          ) : (
            <Button
              size="xs"
              variant="subtle"
              color="gray"
              aria-label={`Re-authorise ${channel.name}`}
              renderRoot={(props) => <Link {...props} {...authorizeLink(channel)} />}
            >
              Re-authorise
            </Button>
          )}
          {canDisconnect ? (
            <Button
              size="xs"
              variant="subtle"
              color="red"
              aria-label={`${channel.status === 'pending' ? 'Discard' : 'Disconnect'} ${channel.name}`}
              onClick={onDisconnect}
            >
              {channel.status === 'pending' ? 'Discard' : 'Disconnect'}
            </Button>
          ) : null}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
