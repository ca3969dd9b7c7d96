import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { CHANNEL_LABELS, type ChannelSummary } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';

/**
 * Confirms `channels.disconnect`. The record and its settings stay, so re-authorising later picks them up;
 * until then nothing moves between the channel and Switchyard. A channel that never finished connecting is
 * discarded the same way, which frees its place on the plan.
 */
export function DisconnectDialog({ channel, onClose }: { channel: ChannelSummary | null; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const disconnect = useMutation(
    trpc.channels.disconnect.mutationOptions({
      onSuccess: (result) =>
        Promise.all([
          queryClient.invalidateQueries(trpc.channels.list.pathFilter()),
          queryClient.invalidateQueries(trpc.channels.get.queryFilter({ id: result.id })),
        ]),
    }),
  );
  const close = () => {
    disconnect.reset();
    onClose();
  };
  const discarding = channel?.status === 'pending';
  const verb = discarding ? 'Discard' : 'Disconnect';

  const confirm = (target: ChannelSummary) =>
    disconnect.mutate(
      { id: target.id },
      {
        onSuccess: (result) => {
          notify.success(`${result.name} was ${target.status === 'pending' ? 'discarded' : 'disconnected'}.`);
          close();
        },
      },
    );

  return (
    <Modal opened={channel !== null} onClose={close} title={channel ? `${verb} ${channel.name}?` : ''}>
      {channel ? (
        <Stack gap="md">
          <Text size="sm">
            {discarding
              ? `This ${CHANNEL_LABELS[channel.type]} channel was never connected. Discarding it frees its place on your plan.`
              : `Switchyard stops syncing stock, products and orders with this ${CHANNEL_LABELS[channel.type]} channel and forgets its access. Its settings are kept: re-authorise it later to carry on where you left off.`}
          </Text>
          {disconnect.isError ? (
            <Alert color="red" variant="light" title={`Could not ${verb.toLowerCase()}`} role="alert">
              {errorMessage(disconnect.error)}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-autofocus>
              Cancel
            </Button>
            <Button color="red" loading={disconnect.isPending} onClick={() => confirm(channel)}>
              {verb}
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}
