import { Alert, Anchor, Button, Group, Select, Skeleton, Stack, Text } from '@mantine/core';
import { type FulfillmentSettings, type FulfillmentStore, ShippingLocationInput } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';

/**
 * Settings → Fulfillment, the stored shipping location (SPEC §3: `{ store_id }`): the store the fulfillment
 * queue opens on. Without one, the queue opens on the first enabled store that ships.
 */
export function ShippingLocationSection() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.fulfillment.settings.queryOptions());
  const stores = useQuery(trpc.fulfillment.stores.queryOptions());
  const failed = settings.isError ? settings : stores.isError ? stores : null;
  const loaded = settings.data && stores.data ? { settings: settings.data, stores: stores.data.stores } : null;
  return (
    <SectionCard title="Shipping location" description="The store the fulfillment queue opens on for everyone.">
      {failed ? (
        <QueryError
          title="Could not load the shipping location"
          error={failed.error}
          onRetry={() => Promise.all([settings.refetch(), stores.refetch()])}
          retrying={settings.isFetching || stores.isFetching}
        />
      ) : !loaded ? (
        <Skeleton height={72} data-testid="shipping-location-loading" />
      ) : loaded.stores.length === 0 ? (
        <Text size="sm">
          No stores yet: the queue is per store.{' '}
          <Anchor component={Link} to="/locations/create">
            Add a location
          </Anchor>{' '}
          first.
        </Text>
      ) : (
        <ShippingLocationForm
          key={loaded.settings.shipping_location?.store_id ?? ''}
          saved={loaded.settings}
          stores={loaded.stores}
        />
      )}
    </SectionCard>
  );
}

function ShippingLocationForm({ saved, stores }: { saved: FulfillmentSettings; stores: FulfillmentStore[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const storedId = saved.shipping_location?.store_id ?? null;
  const stored = stores.find((s) => s.storeId === storedId);
  const [value, setValue] = useState<string | null>(stored ? stored.storeId : null);
  const [error, setError] = useState<string | undefined>();
  const fallback = stores.find((s) => s.enabled && s.ships) ?? stores.find((s) => s.enabled) ?? stores[0];
  const save = useMutation(
    trpc.fulfillment.setShippingLocation.mutationOptions({
      onSuccess: async (next) => {
        notify.success(next.shipping_location ? 'Shipping location saved.' : 'Shipping location cleared.');
        queryClient.setQueryData(trpc.fulfillment.settings.queryKey(), next);
        await Promise.all([
          queryClient.invalidateQueries(trpc.fulfillment.pathFilter()),
          queryClient.invalidateQueries(trpc.hydration.getBasicData.queryFilter()),
        ]);
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ShippingLocationInput.safeParse({ store_id: value });
    if (!parsed.success || parsed.data.store_id === null) {
      setError(parsed.success ? 'Choose a store.' : parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    save.mutate(parsed.data);
  };
  const label = (s: FulfillmentStore) =>
    `${s.name} (${s.storeId})${s.enabled ? '' : ' — disabled'}${s.ships ? '' : ' — does not ship'}`;
  return (
    <form onSubmit={submit} noValidate data-testid="shipping-location-form">
      <Stack gap="sm">
        {storedId && !stored ? (
          <Alert color="yellow" variant="light" title="The stored store is gone">
            The shipping location names store {storedId}, which no longer exists. Choose another one.
          </Alert>
        ) : null}
        <Select
          label="Store"
          placeholder="Choose a store"
          data={stores.map((s) => ({ value: s.storeId, label: label(s), disabled: !s.enabled }))}
          value={value}
          onChange={(v) => {
            setValue(v);
            setError(undefined);
          }}
          error={error}
          searchable
          nothingFoundMessage="No store matches"
          allowDeselect={false}
          maw={420}
          description={
            stored
              ? undefined
              : `None stored: the queue opens on ${fallback ? `${fallback.name} (${fallback.storeId})` : 'the first store'}.`
          }
        />
        <Group gap="sm">
          <Button type="submit" loading={save.isPending && save.variables?.store_id !== null}>
            Save shipping location
          </Button>
          {storedId ? (
            <Button
              variant="default"
              onClick={() => {
                setError(undefined);
                save.mutate({ store_id: null });
              }}
              loading={save.isPending && save.variables?.store_id === null}
            >
              Clear
            </Button>
          ) : null}
        </Group>
      </Stack>
    </form>
  );
}
