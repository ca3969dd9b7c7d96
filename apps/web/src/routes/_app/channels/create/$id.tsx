import { Alert, Anchor, Button, Group, Paper, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { CHANNEL_LABELS, type ChannelDetail, GetOauthUrlInput } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { z } from 'zod';
import { QueryError } from '../../../../components/query-error.tsx';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';
import { channelOptions } from '../-components/channel-api.ts';

export const Route = createFileRoute('/_app/channels/create/$id')({
  component: CreateChannelPage,
});

const properties = GetOauthUrlInput.shape.properties.shape;

/** Shopify's rule for a shop name (before ".myshopify.com"), on the address as typed or pasted. */
const SHOP_ADDRESS = /^(https?:\/\/)?[a-z0-9][a-z0-9_-]*(\.myshopify\.com)?\/?$/i;

const ShopForm = z.object({
  shop: properties.shop
    .unwrap()
    .min(1, '* Required')
    .regex(SHOP_ADDRESS, 'Enter the address of your shop, e.g. your-store.myshopify.com'),
});

const HashForm = z.object({
  hash: properties.hash
    .unwrap()
    .min(1, '* Required')
    .regex(/^[a-z0-9]+$/i, 'A store hash has only letters and digits, e.g. abc123'),
});

function CreateChannelPage() {
  const { id } = Route.useParams();
  const trpc = useTRPC();
  const channel = useQuery(channelOptions(trpc, id));

  return (
    <Stack gap="lg" maw={640}>
      <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/channels" />}>
        ← Channels
      </Anchor>
      {channel.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the channel">
          <Skeleton height={32} width="60%" />
          <Skeleton height={160} />
        </Stack>
      ) : channel.isError ? (
        <QueryError
          title="Could not load this channel"
          error={channel.error}
          onRetry={channel.refetch}
          retrying={channel.isFetching}
        />
      ) : (
        <ConnectStep channel={channel.data} />
      )}
    </Stack>
  );
}

function ConnectStep({ channel }: { channel: ChannelDetail }) {
  const label = CHANNEL_LABELS[channel.type];
  return (
    <>
      <Title order={1}>Connect {label}</Title>
      {channel.status === 'connected' ? (
        <Alert variant="light" color="teal" title={`${channel.name} is already connected`}>
          <Group gap="sm">
            <Anchor
              renderRoot={(props) => (
                <Link {...props} to="/channels/$id/channel-settings" params={{ id: channel.id }} />
              )}
            >
              Open its settings
            </Anchor>
          </Group>
        </Alert>
      ) : channel.type === 'square' ? (
        <Paper withBorder p="lg" radius="md">
          <Stack gap="md">
            <Text>Square asks you to sign in and allow Switchyard to see your locations, catalog and sales.</Text>
            <Group>
              <Button
                renderRoot={(props) => <Link {...props} to="/channels/square" search={{ channelId: channel.id }} />}
              >
                Continue to Square
              </Button>
            </Group>
          </Stack>
        </Paper>
      ) : channel.type === 'shopify' ? (
        <ShopifyStep channelId={channel.id} />
      ) : (
        <BigCommerceStep channelId={channel.id} />
      )}
    </>
  );
}

function ShopifyStep({ channelId }: { channelId: string }) {
  const navigate = useNavigate();
  const form = useZodForm(ShopForm, { shop: '' });
  return (
    <Paper withBorder p="lg" radius="md">
      <form
        noValidate
        aria-label="Your Shopify shop"
        onSubmit={form.onSubmit(({ shop }) =>
          navigate({ to: '/oauth/initiate/$service', params: { service: 'shopify' }, search: { shop, channelId } }),
        )}
      >
        <Stack gap="md">
          <Text size="sm">
            Next, Shopify asks you to install the Switchyard app in your shop. You need to be its owner or a staff
            member allowed to install apps.
          </Text>
          <TextInput
            label="Shop address"
            description="Shown in your Shopify admin, under Settings → Domains"
            placeholder="your-store.myshopify.com"
            autoComplete="url"
            spellCheck={false}
            required
            {...form.inputProps('shop')}
          />
          <Group>
            <Button type="submit">Continue to Shopify</Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function BigCommerceStep({ channelId }: { channelId: string }) {
  const navigate = useNavigate();
  const form = useZodForm(HashForm, { hash: '' });
  return (
    <Paper withBorder p="lg" radius="md">
      <form
        noValidate
        aria-label="Your BigCommerce store"
        onSubmit={form.onSubmit(({ hash }) =>
          navigate({ to: '/oauth/initiate/$service', params: { service: 'bigcommerce' }, search: { hash, channelId } }),
        )}
      >
        <Stack gap="md">
          <Text size="sm">Next, BigCommerce asks you to sign in and install the Switchyard app in your store.</Text>
          <TextInput
            label="Store hash"
            description="In your control panel's address: store-abc123.mybigcommerce.com has the hash abc123"
            placeholder="abc123"
            spellCheck={false}
            required
            {...form.inputProps('hash')}
          />
          <Group>
            <Button type="submit">Continue to BigCommerce</Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
