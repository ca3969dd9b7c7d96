import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { type ApiKey, CreateApiKeyInput } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';

function useInvalidateKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries(trpc.apps.pathFilter());
}

/**
 * Create an API key (apps.create). The secret is answered only once: it is shown here with a copy button,
 * and closing the dialog forgets it (the mutation's data is reset too).
 */
export function CreateApiKeyDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateKeys();
  const create = useMutation(
    // gcTime 0: once reset, the mutation (and the secret in its data) leaves the cache at once.
    trpc.apps.create.mutationOptions({ gcTime: 0, onSuccess: () => void invalidate() }),
  );
  const close = () => {
    create.reset();
    onClose();
  };
  const created = create.data;

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={created ? 'Copy your new API key' : 'Create an API key'}
      closeOnClickOutside={!created}
    >
      {created ? (
        <Stack gap="md">
          <Alert color="yellow" variant="light" title="This is the only time you will see this key" role="alert">
            Copy it now and keep it somewhere safe. Switchyard stores only a fingerprint of it, so it cannot be shown
            again; if you lose it, revoke it and create a new one.
          </Alert>
          <Stack gap={4}>
            <Text size="sm" fw={500} id="new-api-key-label">
              API key “{created.key.name}”
            </Text>
            <Code block aria-labelledby="new-api-key-label" style={{ wordBreak: 'break-all' }}>
              {created.secret}
            </Code>
          </Stack>
          <Group justify="space-between">
            <CopyButton value={created.secret}>
              {({ copied, copy }) => (
                <Button variant={copied ? 'light' : 'filled'} color={copied ? 'teal' : undefined} onClick={copy}>
                  {copied ? 'Copied' : 'Copy key'}
                </Button>
              )}
            </CopyButton>
            <Button variant="default" onClick={close}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : opened ? (
        <NameForm
          label="Create API key"
          submitLabel="Create key"
          initialName=""
          pending={create.isPending}
          error={create.isError ? errorMessage(create.error) : undefined}
          onSubmit={(name) => create.mutate({ name })}
          onCancel={close}
        />
      ) : null}
    </Modal>
  );
}

/** Rename an API key (apps.update). */
export function RenameApiKeyDialog({ apiKey, onClose }: { apiKey: ApiKey | undefined; onClose: () => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateKeys();
  const rename = useMutation(
    trpc.apps.update.mutationOptions({
      onSuccess: (key) => {
        notify.success(`The API key is now called “${key.name}”.`);
        void invalidate();
        close();
      },
    }),
  );
  const close = () => {
    rename.reset();
    onClose();
  };
  return (
    <Modal opened={apiKey !== undefined} onClose={close} title="Rename API key">
      {apiKey ? (
        <NameForm
          key={apiKey.id}
          label="Rename API key"
          submitLabel="Save name"
          initialName={apiKey.name}
          pending={rename.isPending}
          error={rename.isError ? errorMessage(rename.error) : undefined}
          onSubmit={(name) => rename.mutate({ id: apiKey.id, name })}
          onCancel={close}
        />
      ) : null}
    </Modal>
  );
}

/** Revoke an API key (apps.revoke), after confirming: programs using it stop working at once. */
export function RevokeApiKeyDialog({ apiKey, onClose }: { apiKey: ApiKey | undefined; onClose: () => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateKeys();
  const revoke = useMutation(
    trpc.apps.revoke.mutationOptions({
      onSuccess: () => {
        notify.success(`The API key “${apiKey?.name ?? ''}” was revoked.`);
        void invalidate();
        close();
      },
    }),
  );
  const close = () => {
    revoke.reset();
    onClose();
  };
  return (
    <Modal opened={apiKey !== undefined} onClose={close} title="Revoke API key?">
      {apiKey ? (
        <Stack gap="md">
          <Text size="sm">
            Anything using “{apiKey.name}” ({apiKey.prefix}…) will stop working at once. This cannot be undone.
          </Text>
          {revoke.isError ? (
            <Alert color="red" variant="light" title="Could not revoke the key" role="alert">
              {errorMessage(revoke.error)}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color="red" loading={revoke.isPending} onClick={() => revoke.mutate({ id: apiKey.id })}>
              Revoke key
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}

interface NameFormProps {
  label: string;
  submitLabel: string;
  initialName: string;
  pending: boolean;
  error: string | undefined;
  onSubmit: (name: string) => void;
  onCancel: () => void;
}

function NameForm({ label, submitLabel, initialName, pending, error, onSubmit, onCancel }: NameFormProps) {
  const form = useZodForm(CreateApiKeyInput, { name: initialName });
  return (
    <form noValidate aria-label={label} onSubmit={form.onSubmit((data) => onSubmit(data.name))}>
      <Stack gap="md">
        {error ? (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        ) : null}
        <TextInput
          label="Name"
          description="Say what uses the key, e.g. “Warehouse scanner”."
          required
          data-autofocus
          {...form.inputProps('name')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
