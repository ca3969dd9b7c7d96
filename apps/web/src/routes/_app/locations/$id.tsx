import { Alert, Anchor, Button, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { locationToForm } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { useState } from 'react';
import { QueryError } from '../../../components/query-error.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { DeleteLocationDialog } from './-components/delete-location-dialog.tsx';
import { isLocationNotFound, locationOptions, locationsRest, refreshLocations } from './-components/location-api.ts';
import { LocationForm, type LocationSubmit } from './-components/location-form.tsx';

export const Route = createFileRoute('/_app/locations/$id')({
  component: LocationPage,
});

function LocationPage() {
  const { id } = Route.useParams();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const location = useQuery(locationOptions(trpc, id));
  const [deleting, setDeleting] = useState(false);
  const update = useMutation({
    mutationFn: (input: LocationSubmit) => locationsRest.update(id, input),
    onSuccess: async (saved) => {
      await refreshLocations(queryClient, trpc, id);
      notify.success(`${saved.name} was saved.`);
    },
  });

  const back = (
    <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/locations" />}>
      ← Locations
    </Anchor>
  );

  if (location.isPending) {
    return (
      <Stack gap="lg" maw={900} role="status" aria-label="Loading the location">
        <Skeleton height={36} width="40%" />
        <Skeleton height={160} />
        <Skeleton height={220} />
      </Stack>
    );
  }
  if (location.isError) {
    return (
      <Stack gap="lg" maw={900}>
        {back}
        {isLocationNotFound(location.error) ? (
          <Alert variant="light" title="Location not found" role="alert">
            It may have been deleted.{' '}
            <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/locations" />}>
              See all locations
            </Anchor>
          </Alert>
        ) : (
          <QueryError
            title="Could not load the location"
            error={location.error}
            onRetry={location.refetch}
            retrying={location.isFetching}
          />
        )}
      </Stack>
    );
  }

  const data = location.data;
  return (
    <Stack gap="lg" maw={900}>
      <Stack gap={4}>
        {back}
        <Group gap="sm" align="baseline">
          <Title order={1}>{data.name}</Title>
          {data.enabled ? null : (
            <Text c="dimmed" size="sm">
              Disabled
            </Text>
          )}
        </Group>
        <Text c="dimmed" size="sm">
          Store {data.store_id} · last changed{' '}
          <time dateTime={data.updated_at.toISOString()}>{formatDateTime(data.updated_at.toISOString())}</time>
        </Text>
      </Stack>
      <LocationForm
        // A save answers the location as stored; the form starts again from it.
        key={data.updated_at.toISOString()}
        initial={locationToForm(data)}
        label={data.name}
        submitLabel="Save location"
        submitting={update.isPending}
        onSubmit={(input) => update.mutate(input)}
        error={update.error}
        failedStoreId={update.variables?.store_id}
        actions={
          <Button variant="subtle" color="red" onClick={() => setDeleting(true)}>
            Delete location
          </Button>
        }
      />
      <DeleteLocationDialog location={deleting ? data : null} onClose={() => setDeleting(false)} />
    </Stack>
  );
}
