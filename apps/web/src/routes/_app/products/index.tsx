import { Alert, Anchor, Button, List, Skeleton, Stack, Text, Title } from '@mantine/core';
import { CHANNEL_LABELS } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, Navigate } from '@tanstack/react-router';
import { QueryError } from '../../../components/query-error.tsx';
import { useTRPC } from '../../../lib/trpc.ts';
import { channelListOptions } from '../channels/-components/channel-api.ts';

export const Route = createFileRoute('/_app/products/')({
  component: ProductsHome,
});

/**
 * The sidebar's "Products": the catalog is shown per channel (SPEC §2, /products/{channelId}/), so this
 * forwards to the first connected channel's list. With none connected it says so and points to /channels,
 * listing any disconnected channel whose catalog can still be read.
 */
function ProductsHome() {
  const trpc = useTRPC();
  const channels = useQuery(channelListOptions(trpc));

  if (channels.isPending) {
    return (
      <Stack gap="xs" role="status" aria-label="Loading your channels" maw={1200}>
        <Skeleton height={36} width="30%" />
        <Skeleton height={200} />
      </Stack>
    );
  }
  if (channels.isError) {
    return (
      <QueryError
        title="Could not load your channels"
        error={channels.error}
        onRetry={channels.refetch}
        retrying={channels.isFetching}
      />
    );
  }
  const connected = channels.data.find((channel) => channel.status === 'connected');
  if (connected) return <Navigate to="/products/$channelId" params={{ channelId: connected.id }} replace />;
  const others = channels.data.filter((channel) => channel.status !== 'pending');
  return (
    <Stack gap="lg" maw={1200}>
      <Title order={1}>Products</Title>
      <Alert variant="light" title="No connected channel">
        <Stack gap="sm" align="flex-start">
          <Text size="sm">
            Your catalog is kept per sales channel. Connect your Shopify or BigCommerce store or your Square point of
            sale, import its catalog, and its products show here.
          </Text>
          <Button size="xs" renderRoot={(props) => <Link {...props} to="/channels" />}>
            Go to Channels
          </Button>
          {others.length > 0 ? (
            <>
              <Text size="sm">The products of channels that are not connected now can still be read:</Text>
              <List size="sm">
                {others.map((channel) => (
                  <List.Item key={channel.id}>
                    <Anchor
                      size="sm"
                      renderRoot={(props) => (
                        <Link {...props} to="/products/$channelId" params={{ channelId: channel.id }} />
                      )}
                    >
                      {channel.name}
                    </Anchor>{' '}
                    ({CHANNEL_LABELS[channel.type]})
                  </List.Item>
                ))}
              </List>
            </>
          ) : null}
        </Stack>
      </Alert>
    </Stack>
  );
}
