import { Alert, Anchor, Button, Group, Modal, Skeleton, Stack, Text, Title } from '@mantine/core';
import type { Buffer } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { QueryError } from '../../../components/query-error.tsx';
import { errorMessage } from '../../../lib/errors.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { bufferOptions, isNotFound, refreshBuffers } from './-components/buffer-api.ts';
import { BufferForm } from './-components/buffer-form.tsx';

export const Route = createFileRoute('/_app/dynamic-buffers/$id')({
  component: BufferPage,
});

const back = (
  <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/dynamic-buffers" />}>
    ← Dynamic buffers
  </Anchor>
);

function NotFound() {
  return (
    <Stack gap="lg" maw={900}>
      {back}
      <Alert variant="light" title="Buffer not found" role="alert">
        It may have been deleted.{' '}
        <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/dynamic-buffers" />}>
          See all buffers
        </Anchor>
      </Alert>
    </Stack>
  );
}

function BufferPage() {
  const { id: param } = Route.useParams();
  const id = Number(param);
  // Buffer ids are positive whole numbers; anything else names no buffer.
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) return <NotFound />;
  return <BufferEditor id={id} />;
}

function BufferEditor({ id }: { id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const buffer = useQuery(bufferOptions(trpc, id));
  const [deleting, setDeleting] = useState(false);
  const update = useMutation(
    trpc.buffers.update.mutationOptions({
      onSuccess: async (saved) => {
        queryClient.setQueryData(trpc.buffers.get.queryKey({ id }), saved);
        await refreshBuffers(queryClient, trpc);
        notify.success('The buffer was saved.');
      },
    }),
  );

  if (buffer.isPending) {
    return (
      <Stack gap="lg" maw={900} role="status" aria-label="Loading the buffer">
        <Skeleton height={36} width="40%" />
        <Skeleton height={200} />
      </Stack>
    );
  }
  if (buffer.isError) {
    if (isNotFound(buffer.error)) return <NotFound />;
    return (
      <Stack gap="lg" maw={900}>
        {back}
        <QueryError
          title="Could not load the buffer"
          error={buffer.error}
          onRetry={buffer.refetch}
          retrying={buffer.isFetching}
        />
      </Stack>
    );
  }

  const data = buffer.data;
  return (
    <Stack gap="lg" maw={900}>
      <Stack gap={4}>
        {back}
        <Title order={1}>Buffer for {data.sku}</Title>
        <Text c="dimmed" size="sm">
          {data.qty} held back at {data.location_external_id}
        </Text>
      </Stack>
      <BufferForm
        // A save answers the buffer as stored; the form starts again from it.
        key={`${data.sku}|${data.location_external_id}|${data.channel_id}|${data.qty}`}
        initial={{ ...data }}
        label={`Buffer for ${data.sku}`}
        submitLabel="Save buffer"
        submitting={update.isPending}
        onSubmit={(input) => update.mutate({ id, ...input })}
        error={update.error}
        actions={
          <Button variant="subtle" color="red" onClick={() => setDeleting(true)}>
            Delete buffer
          </Button>
        }
      />
      <DeleteBufferDialog buffer={deleting ? data : null} onClose={() => setDeleting(false)} />
    </Stack>
  );
}

/** Confirms `buffers.delete`: the channel is offered the held-back units again. */
function DeleteBufferDialog({ buffer, onClose }: { buffer: Buffer | null; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation(trpc.buffers.delete.mutationOptions());
  const close = () => {
    remove.reset();
    onClose();
  };
  const confirm = (target: Buffer) =>
    remove.mutate(
      { id: target.id },
      {
        onSuccess: async () => {
          queryClient.removeQueries(trpc.buffers.get.queryFilter({ id: target.id }));
          await refreshBuffers(queryClient, trpc);
          notify.success(`The buffer for ${target.sku} was deleted.`);
          close();
          await navigate({ to: '/dynamic-buffers' });
        },
      },
    );

  return (
    <Modal opened={buffer !== null} onClose={close} title={buffer ? `Delete the buffer for ${buffer.sku}?` : ''}>
      {buffer ? (
        <Stack gap="md">
          <Text size="sm">
            {buffer.qty === 1 ? 'The 1 unit' : `The ${buffer.qty} units`} held back at {buffer.location_external_id}{' '}
            will be offered to the channel again within seconds.
          </Text>
          {remove.isError ? (
            <Alert color="red" variant="light" title="Could not delete the buffer" role="alert">
              {errorMessage(remove.error)}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-autofocus>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => confirm(buffer)}>
              Delete
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}
