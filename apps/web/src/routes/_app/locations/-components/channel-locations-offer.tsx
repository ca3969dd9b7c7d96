import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Group,
  Paper,
  Skeleton,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  CHANNEL_LABELS,
  type ChannelLocationDraft,
  type ChannelMappingStatus,
  type CreatedLocationsFromChannel,
  LocationInput,
} from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useId, useState } from 'react';
import { QueryError } from '../../../../components/query-error.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { retryUnlessRefused } from '../../../../lib/query-client.ts';
import { showToast } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';

/** Where each live channel's locations stand against ours (an error reads as "nothing to offer"). */
export function useMappingStatus() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.locations.mappingStatus.queryOptions(), retry: retryUnlessRefused });
}

/**
 * The channels to offer locations for: those the server says need them, and any offered earlier on this
 * screen (so the offer stays to show what it did once the channel no longer needs it).
 */
export function useLocationOffers() {
  const mapping = useMappingStatus();
  const [shown, setShown] = useState<ChannelMappingStatus[]>([]);
  useEffect(() => {
    const fresh = (mapping.data ?? []).filter((m) => m.offer);
    setShown((before) => {
      const missing = fresh.filter((m) => !before.some((b) => b.channelId === m.channelId));
      return missing.length ? [...before, ...missing] : before;
    });
  }, [mapping.data]);
  return { mapping, offers: shown };
}

const addressLine = (address: ChannelLocationDraft['address']) =>
  [address.address1, address.city, address.province, address.zip, address.country].filter(Boolean).join(', ');

interface Row extends ChannelLocationDraft {
  include: boolean;
}

/**
 * Issue 19: a Shopify or BigCommerce channel none of whose locations maps to ours offers to make our
 * locations from its own (name, address, whether it ships or serves pickup), with store ids to edit. One
 * click makes them, maps the channel to them and starts an import that takes the shop's stock.
 */
export function ChannelLocationsOffer({ status }: { status: ChannelMappingStatus }) {
  const trpc = useTRPC();
  const label = CHANNEL_LABELS[status.type];
  const titleId = useId();
  const drafts = useQuery({
    ...trpc.locations.channelDrafts.queryOptions({ channelId: status.channelId }),
    retry: retryUnlessRefused,
  });
  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby={titleId}>
      <Stack gap="sm">
        <Title order={2} size="h4" id={titleId}>
          Create your locations from {label}
        </Title>
        <Text size="sm">
          None of your locations takes the stock of {status.name}'s {status.unmapped}{' '}
          {status.unmapped === 1 ? 'location' : 'locations'}, so its products would show 0 on hand. Create your
          locations from {label}'s: they are mapped to the channel and its catalog is imported with its stock. If you
          connect Square later, its stores take these locations over by name.
        </Text>
        {drafts.isPending ? (
          <Skeleton height={120} role="status" aria-label={`Loading the ${label} locations`} />
        ) : drafts.isError ? (
          <QueryError
            title={`Could not read the locations at ${label}`}
            error={drafts.error}
            onRetry={drafts.refetch}
            retrying={drafts.isFetching}
          />
        ) : drafts.data.drafts.length === 0 ? (
          <Text size="sm" c="dimmed">
            {label} lists no active location to create.
          </Text>
        ) : (
          <DraftForm
            key={status.channelId}
            status={status}
            label={label}
            initial={drafts.data.drafts.map((d) => ({ ...d, include: true }))}
          />
        )}
      </Stack>
    </Paper>
  );
}

function DraftForm({ status, label, initial }: { status: ChannelMappingStatus; label: string; initial: Row[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [rows, setRows] = useState(initial);
  const [done, setDone] = useState<CreatedLocationsFromChannel | null>(null);
  const chosen = rows.filter((row) => row.include);
  const storeError = (row: Row) => {
    if (!row.include) return null;
    const parsed = LocationInput.shape.store_id.safeParse(row.store_id);
    if (!parsed.success) return parsed.error.issues[0]?.message ?? 'Invalid store id';
    if (chosen.filter((other) => other.store_id.trim() === row.store_id.trim()).length > 1) {
      return 'Each location needs its own store id';
    }
    return null;
  };
  const nameError = (row: Row) => (row.include && !row.name.trim() ? '* Required' : null);
  const invalid = chosen.length === 0 || rows.some((row) => storeError(row) || nameError(row));

  const create = useMutation(
    trpc.locations.createFromChannel.mutationOptions({
      onSuccess: (data) => {
        setDone(data);
        showToast({
          type: 'success',
          title: `${data.locations.length} ${data.locations.length === 1 ? 'location' : 'locations'} created`,
          description: data.syncId ? `Importing the ${label} catalog with its stock.` : undefined,
        });
        void queryClient.invalidateQueries({ queryKey: trpc.locations.mappingStatus.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.locations.list.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.channels.pathKey() });
        void queryClient.invalidateQueries({ queryKey: ['rest'] });
      },
    }),
  );
  const update = (index: number, change: Partial<Row>) =>
    setRows((current) => current.map((row, i) => (i === index ? { ...row, ...change } : row)));

  if (done) {
    return (
      <Alert color="teal" variant="light" role="status" title="Locations created">
        <Stack gap="xs" align="flex-start">
          <Text size="sm">
            {done.locations.map((l) => l.name).join(', ')}{' '}
            {done.syncId
              ? `take the stock of ${status.name}: its catalog is being imported.`
              : 'are mapped to the channel. Import its catalog to take its stock.'}
          </Text>
          <Group gap="sm">
            {done.syncId ? (
              <Anchor
                size="sm"
                renderRoot={(props) => <Link {...props} to="/syncs/$id" params={{ id: String(done.syncId) }} />}
              >
                Follow the import
              </Anchor>
            ) : null}
            <Anchor
              size="sm"
              renderRoot={(props) => (
                <Link {...props} to="/products/$channelId" params={{ channelId: status.channelId }} />
              )}
            >
              See the products
            </Anchor>
          </Group>
        </Stack>
      </Alert>
    );
  }

  return (
    <form
      aria-label={`Locations to create from ${label}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (invalid) return;
        create.mutate({
          channelId: status.channelId,
          locations: chosen.map(({ include: _include, ...draft }) => ({
            ...draft,
            name: draft.name.trim(),
            store_id: draft.store_id.trim(),
          })),
        });
      }}
    >
      <Stack gap="sm">
        <Table.ScrollContainer minWidth={720}>
          <Table aria-label={`${label} locations to create`} verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Create</Table.Th>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Store id</Table.Th>
                <Table.Th scope="col">Ships</Table.Th>
                <Table.Th scope="col">Pickup</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => (
                <Table.Tr key={row.externalLocationId}>
                  <Table.Td>
                    <Checkbox
                      aria-label={`Create ${row.name}`}
                      checked={row.include}
                      disabled={create.isPending}
                      onChange={(event) => update(index, { include: event.currentTarget.checked })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={`Name of ${row.name}`}
                      value={row.name}
                      disabled={!row.include || create.isPending}
                      error={nameError(row)}
                      onChange={(event) => update(index, { name: event.currentTarget.value })}
                      maxLength={100}
                    />
                    <Text size="xs" c="dimmed" mt={4}>
                      {addressLine(row.address) || 'No address'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={`Store id of ${row.name}`}
                      value={row.store_id}
                      disabled={!row.include || create.isPending}
                      error={storeError(row)}
                      onChange={(event) => update(index, { store_id: event.currentTarget.value })}
                      maxLength={100}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Switch
                      aria-label={`${row.name} ships orders`}
                      checked={row.ships}
                      disabled={!row.include || create.isPending}
                      onChange={(event) => update(index, { ships: event.currentTarget.checked })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Switch
                      aria-label={`${row.name} serves pickup`}
                      checked={row.pickup}
                      disabled={!row.include || create.isPending}
                      onChange={(event) => update(index, { pickup: event.currentTarget.checked })}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {create.isError ? (
          <Alert color="red" variant="light" role="alert" title="The locations were not created">
            {errorMessage(create.error)}
          </Alert>
        ) : null}
        <Group>
          <Button type="submit" loading={create.isPending} disabled={invalid}>
            {`Create ${chosen.length} ${chosen.length === 1 ? 'location' : 'locations'} and import stock`}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
