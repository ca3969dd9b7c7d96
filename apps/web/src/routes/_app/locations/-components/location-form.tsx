import {
  Alert,
  Anchor,
  Button,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import {
  formToLocationInput,
  LocationForm as LocationFormSchema,
  type LocationForm as LocationFormValues,
  type ProviderStore,
} from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { retryUnlessRefused } from '../../../../lib/query-client.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';
import { isPlanLimit, locationKeys, locationsRest, storeIdError } from './location-api.ts';

export type LocationSubmit = ReturnType<typeof formToLocationInput>;

export interface LocationFormProps {
  initial: LocationFormValues;
  /** Names the form for assistive technology ("New location", "Main Street"). */
  label: string;
  submitLabel: string;
  submitting: boolean;
  onSubmit: (input: LocationSubmit) => void;
  /** The failed save, if any: its message is shown, and a store id refusal also at the store field. */
  error: unknown;
  /** The store id the failed save sent: its field message goes once the store is changed. */
  failedStoreId?: string | undefined;
  /** More controls next to the save button (Delete). */
  actions?: ReactNode;
}

/** The create and edit form of a location, checked with the shared LocationForm schema. */
export function LocationForm({
  initial,
  label,
  submitLabel,
  submitting,
  onSubmit,
  error,
  failedStoreId,
  actions,
}: LocationFormProps) {
  const form = useZodForm(LocationFormSchema, initial);
  const serverStoreError = error && form.values.store_id === failedStoreId ? storeIdError(error) : undefined;

  return (
    <form noValidate aria-label={label} onSubmit={form.onSubmit((data) => onSubmit(formToLocationInput(data)))}>
      <Stack gap="lg">
        {error ? (
          <Alert color="red" variant="light" title="Could not save the location" role="alert">
            <Stack gap={4}>
              <Text size="sm">{errorMessage(error)}</Text>
              {isPlanLimit(error) ? (
                <Anchor
                  size="sm"
                  renderRoot={(props) => <Link {...props} to="/settings/account" search={{ upgrade: true }} />}
                >
                  Upgrade your plan
                </Anchor>
              ) : null}
            </Stack>
          </Alert>
        ) : null}
        <SectionCard title="Store" description="What the location is called and which point-of-sale store it is.">
          <TextInput label="Name" required maxLength={100} {...form.inputProps('name')} />
          <StoreField
            value={String(form.values.store_id ?? '')}
            onChange={(value) => form.setValue('store_id', value)}
            error={form.errors.store_id ?? serverStoreError}
            keep={initial.store_id}
          />
        </SectionCard>
        <SectionCard title="Address">
          <TextInput label="Address" autoComplete="address-line1" {...form.inputProps('address1')} />
          <TextInput label="Address line 2" autoComplete="address-line2" {...form.inputProps('address2')} />
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput label="City" autoComplete="address-level2" {...form.inputProps('city')} />
            <TextInput label="State or province" autoComplete="address-level1" {...form.inputProps('province')} />
            <TextInput label="Postal code" autoComplete="postal-code" {...form.inputProps('zip')} />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Country" autoComplete="country-name" {...form.inputProps('country')} />
            <TextInput label="Phone" type="tel" autoComplete="tel" {...form.inputProps('phone')} />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label="Latitude"
              inputMode="decimal"
              placeholder="45.5202"
              description="Decimal degrees, for routing to the nearest store. Empty: placed from the postal code."
              {...form.inputProps('latitude')}
            />
            <TextInput
              label="Longitude"
              inputMode="decimal"
              placeholder="-122.6742"
              description="West of Greenwich is negative."
              {...form.inputProps('longitude')}
            />
          </SimpleGrid>
        </SectionCard>
        <SectionCard
          title="Selling and fulfilment"
          description="What the location does for your channels and your orders."
        >
          <Switch
            label="Enabled"
            description="Its stock is offered on your channels. A disabled location offers none (its channels get 0)."
            {...form.checkboxProps('enabled')}
          />
          <Switch
            label="Ships orders"
            description="Orders can be sent out from here."
            {...form.checkboxProps('ships')}
          />
          <Switch
            label="Serves pickup"
            description="Customers can collect their orders here."
            {...form.checkboxProps('pickup')}
          />
          <NumberInput
            label="Routing priority"
            description="Lower numbers are tried first when an order is routed to a location (0–1000)."
            name="priority"
            min={0}
            max={1000}
            allowDecimal={false}
            allowNegative={false}
            maw={240}
            value={form.values.priority as number | string}
            onChange={(value) => form.setValue('priority', value)}
            error={form.errors.priority}
          />
        </SectionCard>
        <Group justify="space-between">
          <Button type="submit" loading={submitting}>
            {submitLabel}
          </Button>
          {actions}
        </Group>
      </Stack>
    </form>
  );
}

/** Options for the store select; a saved store Square no longer lists still shows, named by its id. */
export function storeOptions(stores: ProviderStore[], keep: string) {
  const options = stores.map((store) => ({
    value: store.id,
    label: `${store.name}${store.active ? '' : ' (inactive)'} · ${store.id}`,
  }));
  if (keep && !options.some((option) => option.value === keep)) {
    options.push({ value: keep, label: `Unknown store · ${keep}` });
  }
  return options;
}

/**
 * The store id: one of the connected Square's stores (`GET wrappers/square/stores`), or any text while no
 * Square point of sale is connected (a warehouse, or a store whose POS comes later).
 */
function StoreField({
  value,
  onChange,
  error,
  keep,
}: {
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  keep: string;
}) {
  const stores = useQuery({
    queryKey: locationKeys.squareStores,
    queryFn: locationsRest.squareStores,
    retry: retryUnlessRefused,
  });
  if (stores.isPending) {
    return <Select label="Store" required data={[]} disabled placeholder="Loading your Square stores…" />;
  }
  const list = stores.data?.stores ?? [];
  if (stores.isError || list.length === 0) {
    return (
      <Stack gap="xs">
        <TextInput
          label="Store id"
          required
          name="store_id"
          maxLength={100}
          value={value}
          onChange={(event) => onChange(event.currentTarget.value)}
          error={error}
          aria-invalid={error ? true : undefined}
          description={
            stores.isError ? (
              'Enter the store id yourself; it is checked against Square when you save.'
            ) : (
              <>
                No Square point of sale is connected, so any store id is accepted (a warehouse code, say).{' '}
                <Anchor size="xs" renderRoot={(props) => <Link {...props} to="/channels/square" />}>
                  Connect Square POS
                </Anchor>{' '}
                to choose from its stores.
              </>
            )
          }
        />
        {stores.isError ? (
          <Alert color="yellow" variant="light" title="Could not read your Square stores" role="alert">
            {errorMessage(stores.error)}
          </Alert>
        ) : null}
      </Stack>
    );
  }
  return (
    <Select
      label="Store"
      required
      name="store_id"
      description="One of your Square point-of-sale stores. Channel locations mapped to it sell this location's stock."
      placeholder="Choose a store"
      searchable
      allowDeselect={false}
      nothingFoundMessage="No store matches"
      data={storeOptions(list, keep)}
      value={value || null}
      onChange={(next) => onChange(next ?? '')}
      error={error}
      aria-invalid={error ? true : undefined}
    />
  );
}
