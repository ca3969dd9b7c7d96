import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { locationsRest, refreshLocations } from './location-api.ts';

/**
 * Confirms `DELETE locations/{id}`. The server refuses while the location holds stock and says how much;
 * that message is shown here.
 */
export function DeleteLocationDialog({
  location,
  onClose,
}: {
  location: { id: string; name: string } | null;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => locationsRest.remove(id),
  });
  const close = () => {
    remove.reset();
    onClose();
  };
  const confirm = (target: { id: string; name: string }) =>
    remove.mutate(target.id, {
      onSuccess: async () => {
        notify.success(`${target.name} was deleted.`);
        await navigate({ to: '/locations' });
        queryClient.removeQueries(trpc.locations.get.queryFilter({ id: target.id }));
        await refreshLocations(queryClient, trpc);
      },
    });

  return (
    <Modal opened={location !== null} onClose={close} title={location ? `Delete ${location.name}?` : ''}>
      {location ? (
        <Stack gap="md">
          <Text size="sm">
            The location is removed with its stock records. A location that still holds stock cannot be deleted: count
            it to zero first, or disable the location instead.
          </Text>
          {remove.isError ? (
            <Alert color="red" variant="light" title="Could not delete the location" role="alert">
              {errorMessage(remove.error)}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-autofocus>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => confirm(location)}>
              Delete
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}
