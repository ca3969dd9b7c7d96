import { Alert, Button, Center, Group, List, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import {
  CHANNEL_LABELS,
  CHANNEL_RESULT_STATUSES,
  ChannelResultSearch,
  type ChannelSummary,
  PlatformType,
} from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, notFound, useLocation } from '@tanstack/react-router';
import { z } from 'zod';
import { useAuth } from '../../../../lib/auth.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { channelListOptions } from '../../../_app/channels/-components/channel-api.ts';

type Platform = z.infer<typeof PlatformType>;

const ResultParams = z.object({ platform: PlatformType, status: z.enum(CHANNEL_RESULT_STATUSES) });

export const Route = createFileRoute('/channels/_misc/$platform/$status')({
  validateSearch: ChannelResultSearch.extend({ message: ChannelResultSearch.shape.message.catch(undefined) }),
  beforeLoad: ({ params }) => {
    if (!ResultParams.safeParse(params).success) throw notFound();
  },
  component: ResultPage,
});

function ResultPage() {
  const { platform, status } = ResultParams.parse(Route.useParams());
  const { message } = Route.useSearch();
  const label = CHANNEL_LABELS[platform];
  return (
    <Center>
      <Paper withBorder radius="md" p="xl" maw={620} w="100%">
        {status === 'connected' ? (
          <Connected platform={platform} label={label} message={message} />
        ) : (
          <Stack gap="md">
            <Title order={1} size="h3">
              {label} was not connected
            </Title>
            <Alert color="red" variant="light" role="alert">
              {message || `${label} did not complete the connection.`}
            </Alert>
            <Text size="sm">
              Nothing was changed in your shop. Start connecting again from your channels; if it keeps failing, check
              that you are allowed to install apps in the {label} store.
            </Text>
            <Group>
              <Button renderRoot={(props) => <Link {...props} to="/channels" />}>Back to channels</Button>
            </Group>
          </Stack>
        )}
      </Paper>
    </Center>
  );
}

function Connected({ platform, label, message }: { platform: Platform; label: string; message?: string }) {
  const auth = useAuth();
  return (
    <Stack gap="md">
      <Title order={1} size="h3">
        {label} is connected
      </Title>
      <Text role="status">{message || `Switchyard can now reach your ${label} store.`}</Text>
      {auth.token ? <NextSteps platform={platform} label={label} /> : <SignInToContinue />}
    </Stack>
  );
}

/** The newest connected channel of the platform: the one this authorization just completed. */
function latestConnected(channels: ChannelSummary[], type: ChannelSummary['type']): ChannelSummary | undefined {
  return channels
    .filter((channel) => channel.type === type && channel.status === 'connected')
    .sort((a, b) => (b.connectedAt?.getTime() ?? 0) - (a.connectedAt?.getTime() ?? 0))[0];
}

function NextSteps({ platform, label }: { platform: Platform; label: string }) {
  const trpc = useTRPC();
  const channels = useQuery(channelListOptions(trpc));
  if (channels.isPending) return <Loader size="sm" role="status" aria-label="Loading your channels" />;
  const channel = channels.data ? latestConnected(channels.data, platform) : undefined;
  const square = channels.data ? latestConnected(channels.data, 'square') : undefined;
  return (
    <Stack gap="md">
      <Text fw={500}>What to do next</Text>
      <List spacing="xs" size="sm">
        {square ? null : (
          <List.Item>
            No point of sale? Create your locations from {label}'s own on the channel's page, so its stock lands in
            Switchyard. Or connect your Square point of sale, so its stores can feed {label}.
          </List.Item>
        )}
        <List.Item>
          Map each {label} location to the Square store whose stock it sells, and choose which locations feed the
          channel.
        </List.Item>
        <List.Item>Check the product and shipping settings before the first sync.</List.Item>
      </List>
      <Group>
        {/* Locations map to Square stores, so without a Square that comes first. */}
        {square ? null : (
          <Button renderRoot={(props) => <Link {...props} to="/channels/square" />}>Connect Square POS</Button>
        )}
        {channel ? (
          <Button
            variant={square ? 'filled' : 'light'}
            renderRoot={(props) => <Link {...props} to="/channels/$id/channel-settings" params={{ id: channel.id }} />}
          >
            Map locations
          </Button>
        ) : null}
        <Button variant="default" renderRoot={(props) => <Link {...props} to="/channels" />}>
          Go to channels
        </Button>
      </Group>
    </Stack>
  );
}

function SignInToContinue() {
  const href = useLocation({ select: (location) => location.href });
  return (
    <Group>
      <Button renderRoot={(props) => <Link {...props} to="/login" search={{ redirect: href }} />}>
        Sign in to continue
      </Button>
    </Group>
  );
}
