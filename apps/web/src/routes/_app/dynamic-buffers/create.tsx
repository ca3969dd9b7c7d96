import { Anchor, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { refreshBuffers } from './-components/buffer-api.ts';
import { BufferForm, EMPTY_BUFFER_FORM } from './-components/buffer-form.tsx';

export const Route = createFileRoute('/_app/dynamic-buffers/create')({
  component: CreateBufferPage,
});

function CreateBufferPage() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.buffers.create.mutationOptions({
      onSuccess: async (buffer) => {
        await refreshBuffers(queryClient, trpc);
        notify.success(`Buffer added for ${buffer.sku}.`);
        await navigate({ to: '/dynamic-buffers' });
      },
    }),
  );

  return (
    <Stack gap="lg" maw={900}>
      <Stack gap={4}>
        <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/dynamic-buffers" />}>
          ← Dynamic buffers
        </Anchor>
        <Title order={1}>Add a buffer</Title>
        <Text c="dimmed" size="sm">
          Hold back stock of a SKU at one of your locations from one channel. The channel is updated within seconds.
        </Text>
      </Stack>
      <BufferForm
        initial={EMPTY_BUFFER_FORM}
        label="New buffer"
        submitLabel="Add buffer"
        submitting={create.isPending}
        onSubmit={(input) => create.mutate(input)}
        error={create.error}
      />
    </Stack>
  );
}
