import { Alert, Autocomplete, Button, Group, NumberInput, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  BufferForm as BufferFormSchema,
  type BufferForm as BufferFormValues,
  SEARCH_DEBOUNCE_MS,
} from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { z } from 'zod';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';
import { channelListOptions } from '../../channels/-components/channel-api.ts';
import { allLocationsOptions, channelOptions, locationOptions } from './buffer-api.ts';

export type BufferSubmit = z.output<typeof BufferFormSchema>;

export const EMPTY_BUFFER_FORM: BufferFormValues = { channel_id: '', location_external_id: '', sku: '', qty: '' };

export interface BufferFormProps {
  initial: BufferFormValues;
  /** Names the form for assistive technology. */
  label: string;
  submitLabel: string;
  submitting: boolean;
  onSubmit: (input: BufferSubmit) => void;
  /** The failed save, if any: the server's message is shown. */
  error: unknown;
  /** More controls next to the save button (Delete). */
  actions?: ReactNode;
}

/** The create and edit form of a dynamic buffer, checked with the shared BufferForm schema. */
export function BufferForm({ initial, label, submitLabel, submitting, onSubmit, error, actions }: BufferFormProps) {
  const trpc = useTRPC();
  const form = useZodForm(BufferFormSchema, initial);
  const channels = useQuery(channelListOptions(trpc));
  const locations = useQuery(allLocationsOptions(trpc));
  const channelChoices = channelOptions(channels.data ?? [], String(initial.channel_id ?? ''));
  const locationChoices = locationOptions(locations.data?.results ?? [], String(initial.location_external_id ?? ''));
  // Suggestions from the catalog as the SKU is typed, after the usual pause.
  const [skuTyped] = useDebouncedValue(String(form.values.sku ?? '').trim(), SEARCH_DEBOUNCE_MS);
  const skus = useQuery({
    ...trpc.buffers.skus.queryOptions({ search: skuTyped, limit: 10 }),
    enabled: skuTyped.length > 0,
    placeholderData: keepPreviousData,
  });
  const skuTitles = new Map((skus.data ?? []).map((s) => [s.sku, s.title]));
  const select = (field: 'channel_id' | 'location_external_id') => ({
    value: String(form.values[field] ?? '') || null,
    onChange: (value: string | null) => form.setValue(field, value ?? ''),
    error: form.errors[field],
    'aria-invalid': form.errors[field] ? true : undefined,
    searchable: true,
    nothingFoundMessage: 'Nothing matches',
    comboboxProps: { withinPortal: true },
  });

  return (
    <form noValidate aria-label={label} onSubmit={form.onSubmit((data) => onSubmit(data))}>
      <Stack gap="lg">
        <SectionCard
          title="Buffer"
          description="Units of a SKU at a location that the channel is never offered. The rest is still sold there."
        >
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <Select
              label="Channel"
              placeholder={channels.isPending ? 'Loading channels…' : 'Choose a channel'}
              data={channelChoices}
              disabled={channels.isPending}
              withAsterisk
              description={channels.isSuccess && channelChoices.length === 0 ? 'Connect a channel first.' : undefined}
              {...select('channel_id')}
            />
            <Select
              label="Location"
              placeholder={locations.isPending ? 'Loading locations…' : 'Choose a location'}
              data={locationChoices}
              disabled={locations.isPending}
              withAsterisk
              description={locations.isSuccess && locationChoices.length === 0 ? 'Add a location first.' : undefined}
              {...select('location_external_id')}
            />
            <Autocomplete
              label="SKU"
              placeholder="e.g. TEE-RED-M"
              withAsterisk
              autoComplete="off"
              description="The SKU exactly as in your catalog."
              data={skuTyped ? [...skuTitles.keys()] : []}
              renderOption={({ option }) => (
                <Stack gap={0}>
                  <Text size="sm" ff="monospace">
                    {option.value}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {skuTitles.get(option.value)}
                  </Text>
                </Stack>
              )}
              // The server finds the matches; the list shows them as they are.
              filter={({ options }) => options}
              name="sku"
              value={String(form.values.sku ?? '')}
              onChange={(value) => form.setValue('sku', value)}
              error={form.errors.sku}
              aria-invalid={form.errors.sku ? true : undefined}
            />
            <NumberInput
              label="Quantity held back"
              withAsterisk
              min={0}
              max={1_000_000}
              step={1}
              allowDecimal={false}
              allowNegative={false}
              name="qty"
              value={form.values.qty as number | string}
              onChange={(value) => form.setValue('qty', value)}
              error={form.errors.qty}
              aria-invalid={form.errors.qty ? true : undefined}
            />
          </SimpleGrid>
          {channels.isError || locations.isError ? (
            <Text size="sm" c="red" role="alert">
              {channels.isError
                ? `Could not load your channels: ${errorMessage(channels.error)}`
                : `Could not load your locations: ${errorMessage(locations.error)}`}
            </Text>
          ) : null}
        </SectionCard>
        {error ? (
          <Alert color="red" variant="light" title="Could not save the buffer" role="alert">
            {errorMessage(error)}
          </Alert>
        ) : null}
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
