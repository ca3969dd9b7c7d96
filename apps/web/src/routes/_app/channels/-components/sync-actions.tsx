import '@mantine/dates/styles.css';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { type CatalogSyncStarted, CHANNEL_LABELS, type ChannelDetail } from '@switchyard/contracts';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api } from '../../../../lib/api.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { showToast } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';

/** The REST calls that start a channel's sync runs (SPEC §7 v1 `channels/{id}/actions/…`). */
const syncRest = {
  importCatalog: (id: string, syncFrom: string | null) =>
    api.v1.post<CatalogSyncStarted>(`channels/${encodeURIComponent(id)}/actions/catalog-sync`, {
      sync_from: syncFrom,
    }),
  publishCatalog: (id: string) =>
    api.v1.post<CatalogSyncStarted>(`channels/${encodeURIComponent(id)}/actions/catalog-publish`, {}),
};

/**
 * What a merchant starts by hand on a connected channel: import its catalog (all of it, or what changed since
 * a day), publish our products it lacks, push every quantity, reconcile now, and pull the orders webhooks
 * missed. Each says where to follow it.
 */
export function SyncActions({ channel }: { channel: ChannelDetail }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const label = CHANNEL_LABELS[channel.type];
  const [importOpen, setImportOpen] = useState(false);
  const [since, setSince] = useState<string | null>(null);

  const openSync = (syncId: number) => () => navigate({ to: '/syncs/$id', params: { id: String(syncId) } });
  const failed = (title: string) => (err: unknown) =>
    showToast({ type: 'error', title, description: errorMessage(err), duration: 10_000 });

  const importCatalog = useMutation({
    mutationFn: () => syncRest.importCatalog(channel.id, since),
    onSuccess: (data) => {
      setImportOpen(false);
      showToast({
        type: 'success',
        title: `Importing the ${label} catalog`,
        description: 'Products, variants and stock are being read. Follow it on the Syncs screen.',
        action: { label: 'Open', onClick: openSync(data.sync_id) },
      });
    },
    onError: failed('Could not start the catalog import'),
  });
  const publish = useMutation({
    mutationFn: () => syncRest.publishCatalog(channel.id),
    onSuccess: (data) =>
      showToast({
        type: 'success',
        title: `Publishing missing products to ${label}`,
        action: { label: 'Open', onClick: openSync(data.sync_id) },
      }),
    onError: failed('Could not start publishing'),
  });
  const push = useMutation({
    ...trpc.channels.pushInventory.mutationOptions(),
    onSuccess: (started) =>
      showToast({
        type: 'success',
        title: `Pushing stock to ${label}`,
        description: `${started.variants} variant${started.variants === 1 ? '' : 's'} will be compared and sent where they differ.`,
        action: { label: 'Syncs', onClick: () => navigate({ to: '/syncs' }) },
      }),
    onError: failed('Could not start the stock push'),
  });
  const reconcile = useMutation({
    ...trpc.channels.reconcileInventory.mutationOptions(),
    onSuccess: () =>
      showToast({
        type: 'success',
        title: `Comparing ${label} with Switchyard`,
        action: { label: 'Syncs', onClick: () => navigate({ to: '/syncs' }) },
      }),
    onError: failed('Could not start reconciliation'),
  });

  const importOrders = useMutation({
    ...trpc.orders.importNow.mutationOptions(),
    onSuccess: () =>
      showToast({
        type: 'success',
        title: `Importing ${label} orders`,
        description:
          'Orders changed since the last import are being read: the Order import run on Syncs shows its progress. New ones show on the Orders screen.',
        action: { label: 'Orders', onClick: () => navigate({ to: '/orders' }) },
      }),
    onError: failed('Could not start the order import'),
  });

  if (channel.status !== 'connected') return null;
  return (
    <>
      <Group gap="xs" wrap="wrap" role="group" aria-label="Sync actions">
        {channel.features.catalog ? (
          <>
            <Button size="xs" variant="light" onClick={() => setImportOpen(true)}>
              Import catalog
            </Button>
            <Button size="xs" variant="default" loading={publish.isPending} onClick={() => publish.mutate()}>
              Publish missing products
            </Button>
          </>
        ) : null}
        {channel.features.inventory ? (
          <>
            <Button
              size="xs"
              variant="default"
              loading={push.isPending}
              onClick={() => push.mutate({ id: channel.id })}
            >
              Push stock
            </Button>
            <Button
              size="xs"
              variant="default"
              loading={reconcile.isPending}
              onClick={() => reconcile.mutate({ id: channel.id })}
            >
              Reconcile now
            </Button>
          </>
        ) : null}
        <Button
          size="xs"
          variant="default"
          loading={importOrders.isPending}
          disabled={!channel.features.orders}
          title={channel.features.orders ? undefined : 'Order import is off for this channel'}
          onClick={() => importOrders.mutate({ channelId: channel.id })}
        >
          Import orders now
        </Button>
      </Group>
      <Modal opened={importOpen} onClose={() => setImportOpen(false)} title={`Import the ${label} catalog`}>
        <Stack gap="md">
          <Text size="sm">
            Products are matched to the catalog by SKU. Stock is taken from {label} only where Switchyard has never
            counted it; otherwise Switchyard's numbers are pushed.
          </Text>
          <DateInput
            label="Only products changed since"
            description="Leave empty to import everything."
            value={since}
            onChange={(value) => setSince(value ? String(value) : null)}
            valueFormat="YYYY-MM-DD"
            clearable
            maxDate={new Date()}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setImportOpen(false)}>
              Cancel
            </Button>
            <Button loading={importCatalog.isPending} onClick={() => importCatalog.mutate()}>
              Start import
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
