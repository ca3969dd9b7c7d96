import { Alert, Button, Group, Modal, Select, Stack, TagsInput, Text, Textarea, TextInput } from '@mantine/core';
import { CHANNEL_LABELS, type OrderDetail, orderStatusLabel } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { refreshOrders } from './order-api.ts';

/** Every order mutation answers with the order as it now is: show that at once, then read the lists again. */
function useOrderMutationDone() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return async (order: OrderDetail) => {
    queryClient.setQueryData(trpc.orders.get.queryKey({ id: order.id }), order);
    await refreshOrders(queryClient, trpc);
  };
}

/** Offers only the statuses the server allows from here (ORDER_TRANSITIONS); a refusal shows its message. */
export function StatusChange({ order }: { order: OrderDetail }) {
  const trpc = useTRPC();
  const done = useOrderMutationDone();
  const [status, setStatus] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const setStatusMutation = useMutation(
    trpc.orders.setStatus.mutationOptions({
      onSuccess: async (updated) => {
        notify.success(`Order ${updated.number} is now ${orderStatusLabel(updated.status).toLowerCase()}`);
        setStatus(null);
        setReason('');
        await done(updated);
      },
    }),
  );
  if (order.allowedStatuses.length === 0) return null;
  return (
    <form
      aria-label="Change status"
      onSubmit={(event) => {
        event.preventDefault();
        if (status === null) return;
        setStatusMutation.mutate({ id: order.id, status: Number(status), reason: reason.trim() || undefined });
      }}
    >
      <Stack gap="xs">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <Select
            label="Change status to"
            placeholder="Choose a status"
            data={order.allowedStatuses.map((value) => ({ value: String(value), label: orderStatusLabel(value) }))}
            value={status}
            onChange={(value) => {
              setStatus(value);
              setStatusMutation.reset();
            }}
            w={220}
          />
          <TextInput
            label="Reason (optional)"
            value={reason}
            onChange={(event) => setReason(event.currentTarget.value)}
            maxLength={500}
            w={260}
          />
          <Button type="submit" disabled={status === null} loading={setStatusMutation.isPending}>
            Change status
          </Button>
        </Group>
        {setStatusMutation.isError ? (
          <Alert color="red" variant="light" title="The status was not changed" role="alert">
            {errorMessage(setStatusMutation.error)}
          </Alert>
        ) : null}
      </Stack>
    </form>
  );
}

/** Cancel releases the order's reserved stock at once; the channel is told by a job (or the merchant is flagged). */
export function CancelOrderButton({ order }: { order: OrderDetail }) {
  const trpc = useTRPC();
  const done = useOrderMutationDone();
  const [opened, setOpened] = useState(false);
  const [reason, setReason] = useState('');
  const cancel = useMutation(
    trpc.orders.cancel.mutationOptions({
      onSuccess: async (updated) => {
        notify.success(`Order ${updated.number} was cancelled`);
        close();
        await done(updated);
      },
    }),
  );
  function close() {
    cancel.reset();
    setReason('');
    setOpened(false);
  }
  if (!order.cancellable) return null;
  const channel = order.channel ? `${order.channel.name} (${CHANNEL_LABELS[order.channel.type]})` : 'the channel';
  return (
    <>
      <Button color="red" variant="light" onClick={() => setOpened(true)}>
        Cancel order
      </Button>
      <Modal opened={opened} onClose={close} title={`Cancel order ${order.number}?`}>
        <Stack gap="md">
          <Text size="sm">
            The stock this order holds is released at once, and the cancellation is sent to {channel}. Where the channel
            does not take cancellations, the order is flagged for you to cancel it there too.
          </Text>
          <Textarea
            label="Reason (optional)"
            value={reason}
            onChange={(event) => setReason(event.currentTarget.value)}
            maxLength={500}
            rows={3}
          />
          {cancel.isError ? (
            <Alert color="red" variant="light" title="The order was not cancelled" role="alert">
              {errorMessage(cancel.error)}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-autofocus>
              Keep the order
            </Button>
            <Button
              color="red"
              loading={cancel.isPending}
              onClick={() => cancel.mutate({ id: order.id, reason: reason.trim() || undefined })}
            >
              Cancel order
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** The draft starts from the order; the detail keys it by the saved values, so a save (or a change elsewhere) resets it. */
export function NoteAndTags({ order }: { order: OrderDetail }) {
  const trpc = useTRPC();
  const done = useOrderMutationDone();
  const [note, setNote] = useState(order.note ?? '');
  const [tags, setTags] = useState<string[]>(order.tags);
  const update = useMutation(
    trpc.orders.update.mutationOptions({
      onSuccess: async (updated) => {
        notify.success('Note and tags saved');
        await done(updated);
      },
    }),
  );
  const changed = note !== (order.note ?? '') || tags.join('\n') !== order.tags.join('\n');
  return (
    <SectionCard title="Note and tags">
      <form
        aria-label="Note and tags"
        onSubmit={(event) => {
          event.preventDefault();
          update.mutate({ id: order.id, note: note.trim() === '' ? null : note, tags });
        }}
      >
        <Stack gap="sm">
          <Textarea
            label="Note"
            value={note}
            onChange={(event) => setNote(event.currentTarget.value)}
            maxLength={5000}
            rows={3}
          />
          <TagsInput
            label="Tags"
            placeholder="Type a tag, then Enter"
            value={tags}
            onChange={setTags}
            maxTags={50}
            clearable
          />
          {update.isError ? (
            <Alert color="red" variant="light" title="Not saved" role="alert">
              {errorMessage(update.error)}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button type="submit" disabled={!changed} loading={update.isPending}>
              Save note and tags
            </Button>
          </Group>
        </Stack>
      </form>
    </SectionCard>
  );
}
