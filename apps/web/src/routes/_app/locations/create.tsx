import { Anchor, Stack, Text, Title } from '@mantine/core';
import { EMPTY_LOCATION_FORM } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { locationsRest, refreshLocations } from './-components/location-api.ts';
import { LocationForm, type LocationSubmit } from './-components/location-form.tsx';

export const Route = createFileRoute('/_app/locations/create')({
  component: CreateLocationPage,
});

function CreateLocationPage() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (input: LocationSubmit) => locationsRest.create(input),
    onSuccess: async (location) => {
      await refreshLocations(queryClient, trpc);
      notify.success(`${location.name} was added.`);
      await navigate({ to: '/locations' });
    },
  });

  return (
    <Stack gap="lg" maw={900}>
      <Stack gap={4}>
        <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/locations" />}>
          ← Locations
        </Anchor>
        <Title order={1}>Add a location</Title>
        <Text c="dimmed" size="sm">
          A store or warehouse that holds stock.
        </Text>
      </Stack>
      <LocationForm
        initial={EMPTY_LOCATION_FORM}
        label="New location"
        submitLabel="Add location"
        submitting={create.isPending}
        onSubmit={(input) => create.mutate(input)}
        error={create.error}
        failedStoreId={create.variables?.store_id}
      />
    </Stack>
  );
}
