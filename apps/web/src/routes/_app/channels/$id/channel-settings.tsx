import '@mantine/dates/styles.css';
import { Alert, Anchor, Group, Select, Skeleton, Stack, Switch, Table, Text } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import {
  CHANNEL_LABELS,
  type ChannelDetail,
  type ChannelSettingsSection,
  type LocationMapping,
  type ProviderStore,
} from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { retryUnlessRefused } from '../../../../lib/query-client.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { ChannelLocationsOffer, useLocationOffers } from '../../locations/-components/channel-locations-offer.tsx';
import { channelsRest, restKeys } from '../-components/channel-api.ts';
import { ChannelFeaturesCard, ChannelNameCard } from '../-components/channel-general.tsx';
import { mergeLocations } from '../-components/locations.ts';
import { type SectionForm, SettingsForm } from '../-components/settings-form.tsx';
import { storeOptions, useLoadedChannel, useSquareStores } from '../-components/use-channel.ts';

export const Route = createFileRoute('/_app/channels/$id/channel-settings')({
  component: ChannelSettingsPage,
});

function ChannelSettingsPage() {
  const channel = useLoadedChannel(Route.useParams().id);
  return (
    <Stack gap="lg">
      <ChannelNameCard channel={channel} />
      <ChannelFeaturesCard channel={channel} />
      {channel.type === 'square' ? <SquareSection channel={channel} /> : <PlatformSection channel={channel} />}
    </Stack>
  );
}

function PlatformSection({ channel }: { channel: ChannelDetail }) {
  const label = CHANNEL_LABELS[channel.type];
  const locations = useQuery({
    queryKey: restKeys.channelLocations(channel.type, channel.id),
    queryFn: () => channelsRest.channelLocations(channel.type, channel.id),
    enabled: channel.status === 'connected',
    retry: retryUnlessRefused,
  });
  const stores = useSquareStores();
  const trpc = useTRPC();
  // Without a Square, channel locations map to the locations of ours (made here, or on the Locations page).
  const ours = useQuery({ ...trpc.locations.list.queryOptions({ limit: 500 }), retry: retryUnlessRefused });
  const { mapping, offers } = useLocationOffers();
  const status = mapping.data?.find((s) => s.channelId === channel.id);
  const offered = offers.find((s) => s.channelId === channel.id);
  const waiting = (channel.status === 'connected' && locations.isPending) || stores.isPending;
  if (waiting) {
    return (
      <Stack gap="md" role="status" aria-label="Loading locations">
        <Skeleton height={180} />
        <Skeleton height={120} />
      </Stack>
    );
  }
  const saved = channel.settings.channel;
  const initial: ChannelSettingsSection = locations.data
    ? { ...saved, locationMap: mergeLocations(saved.locationMap, locations.data.locations) }
    : saved;
  const changed = JSON.stringify(initial.locationMap) !== JSON.stringify(saved.locationMap);
  const squareStores = stores.data?.stores ?? [];
  const targets: ProviderStore[] = [...squareStores];
  for (const location of ours.data?.results ?? []) {
    if (!targets.some((target) => target.id === location.store_id)) {
      targets.push({ id: location.store_id, name: location.name, active: location.enabled, address: null });
    }
  }

  return (
    <Stack gap="lg">
      {offered ? <ChannelLocationsOffer status={offered} /> : null}
      <SettingsForm channel={channel} section="channel" label="Channel settings" initial={initial}>
        {(form) => (
          <>
            <SectionCard
              title="Locations"
              description={`Which of your ${label} locations feed this channel, and which of your stores or locations each one is. A mapped location sells that store's stock.`}
            >
              {locations.isError ? (
                <Alert color="yellow" variant="light" title={`Could not read the locations at ${label}`} role="alert">
                  {errorMessage(locations.error)} The locations saved before are shown.
                </Alert>
              ) : null}
              {changed ? (
                <Alert variant="light" role="status">
                  The locations at {label} changed since these settings were saved. Save to keep the list up to date.
                </Alert>
              ) : null}
              {stores.isError ? (
                <Alert color="yellow" variant="light" title="Could not read your Square stores" role="alert">
                  {errorMessage(stores.error)}
                </Alert>
              ) : targets.length === 0 && !status?.offer ? (
                <Alert variant="light" title="No Square stores to map to" role="status">
                  <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/channels/square" />}>
                    Connect Square POS
                  </Anchor>{' '}
                  to map these locations to your stores, or{' '}
                  <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/locations/create" />}>
                    add a location
                  </Anchor>
                  .
                </Alert>
              ) : null}
              <LocationTable
                form={form}
                stores={targets}
                label={label}
                column={squareStores.length ? 'Square store' : 'Location'}
              />
            </SectionCard>
            <OrderImportCard form={form} label={label} ordersOn={channel.features.orders} />
          </>
        )}
      </SettingsForm>
    </Stack>
  );
}

function LocationTable({
  form,
  stores,
  label,
  column,
}: {
  form: SectionForm<ChannelSettingsSection>;
  stores: ProviderStore[];
  label: string;
  column: 'Square store' | 'Location';
}) {
  const rows = form.values.locationMap;
  if (rows.length === 0) {
    return <Text c="dimmed">{label} lists no locations for this shop yet.</Text>;
  }
  const options = storeOptions(
    stores,
    rows.map((row) => row.storeId),
  );
  const update = (index: number, change: Partial<LocationMapping>) =>
    form.set(
      'locationMap',
      rows.map((row, i) => (i === index ? { ...row, ...change } : row)),
    );
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table aria-label="Location mapping" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{label} location</Table.Th>
            <Table.Th scope="col">Feeds this channel</Table.Th>
            <Table.Th scope="col">{column}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row, index) => (
            <Table.Tr key={row.externalLocationId}>
              <Table.Td>
                <Text fw={500}>{row.externalName || row.externalLocationId}</Text>
                <Text size="xs" c="dimmed">
                  {row.externalLocationId}
                </Text>
              </Table.Td>
              <Table.Td>
                <Switch
                  aria-label={`${row.externalName} feeds this channel`}
                  checked={row.feeds}
                  disabled={form.disabled}
                  onChange={(event) => update(index, { feeds: event.currentTarget.checked })}
                />
              </Table.Td>
              <Table.Td>
                <Select
                  aria-label={`${column} for ${row.externalName}`}
                  placeholder={stores.length ? 'Not mapped' : 'No stores'}
                  data={options}
                  value={row.storeId}
                  clearable
                  searchable
                  disabled={form.disabled || options.length === 0}
                  nothingFoundMessage="No such store"
                  clearButtonProps={{ 'aria-label': `Unmap ${row.externalName}`, 'aria-hidden': false, tabIndex: 0 }}
                  onChange={(value) => update(index, { storeId: value })}
                  error={form.errorAt(`locationMap.${index}.storeId`)}
                  maw={320}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** When order import starts. Whether orders come in at all is the Orders switch under "What syncs". */
function OrderImportCard({
  form,
  label,
  ordersOn,
}: {
  form: SectionForm<ChannelSettingsSection>;
  label: string;
  ordersOn: boolean;
}) {
  return (
    <SectionCard title="Order import" description={`Orders placed at ${label} come into Switchyard to be fulfilled.`}>
      {!ordersOn && (
        <Text size="sm" c="dimmed">
          Orders are not imported from {label}: turn on Orders under What syncs to import them.
        </Text>
      )}
      <DateInput
        label="Import orders placed on or after"
        description="Leave empty to import the orders placed since the channel was connected."
        placeholder="Since the channel was connected"
        valueFormat="YYYY-MM-DD"
        value={form.values.orderImportFrom}
        onChange={(value) => form.set('orderImportFrom', value || null)}
        clearable
        disabled={form.disabled || !ordersOn}
        error={form.errorAt('orderImportFrom')}
        maw={320}
      />
    </SectionCard>
  );
}

/**
 * A Square channel's locations are stores: whether each feeds the channel, and which location of ours it
 * is. A store that is none of ours becomes a new location when the catalog is imported; one named like a
 * location made from another channel takes that location over (issue 19), or the merchant chooses one here.
 */
function SquareSection({ channel }: { channel: ChannelDetail }) {
  const trpc = useTRPC();
  const ours = useQuery({ ...trpc.locations.list.queryOptions({ limit: 500 }), retry: retryUnlessRefused });
  const locations = ours.data?.results ?? [];
  return (
    <SettingsForm channel={channel} section="channel" label="Channel settings">
      {(form) => (
        <>
          <SectionCard
            title="Stores"
            description="Each Square location is one of your stores. Stores that feed Switchyard share their stock and sales."
          >
            {form.values.locationMap.length === 0 ? (
              <Text c="dimmed">Square lists no locations for this account yet.</Text>
            ) : (
              <Stack gap="xs">
                {form.values.locationMap.map((row, index) => {
                  const set = (change: Partial<LocationMapping>) =>
                    form.set(
                      'locationMap',
                      form.values.locationMap.map((r, i) => (i === index ? { ...r, ...change } : r)),
                    );
                  const taken = new Set(form.values.locationMap.filter((_, i) => i !== index).map((r) => r.storeId));
                  const options = locations
                    .filter((l) => !taken.has(l.store_id))
                    .map((l) => ({ value: l.store_id, label: `${l.name} (${l.store_id})` }));
                  const value = locations.some((l) => l.store_id === row.storeId) ? row.storeId : null;
                  const name = row.externalName || row.externalLocationId;
                  return (
                    <Group key={row.externalLocationId} justify="space-between" wrap="wrap" gap="sm">
                      <Switch
                        label={name}
                        description={row.externalLocationId}
                        checked={row.feeds}
                        disabled={form.disabled}
                        onChange={(event) => set({ feeds: event.currentTarget.checked })}
                      />
                      {locations.length > 0 ? (
                        <Select
                          aria-label={`Your location for ${name}`}
                          placeholder="A new location on import"
                          data={options}
                          value={value}
                          clearable
                          disabled={form.disabled}
                          onChange={(next) => set({ storeId: next ?? row.externalLocationId })}
                          // Wide enough for a store's name and id ("Downtown Store (3GDJC7Q79GJUS)" was cut).
                          w={340}
                          maw="100%"
                        />
                      ) : null}
                    </Group>
                  );
                })}
              </Stack>
            )}
          </SectionCard>
          <OrderImportCard form={form} label="Square" ordersOn={channel.features.orders} />
        </>
      )}
    </SettingsForm>
  );
}
