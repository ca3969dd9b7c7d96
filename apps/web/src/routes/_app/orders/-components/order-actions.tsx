import {
  Alert,
  Button,
  Group,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import {
  type Address,
  CANCELLABLE_STATUSES,
  CHANNEL_LABELS,
  type OrderDetail,
  type OrderStatus,
  orderStatusLabel,
} from '@switchyard/contracts';
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

const ADDRESS_FIELDS = [
  { key: 'name', label: 'Name' },
  { key: 'company', label: 'Company' },
  { key: 'address1', label: 'Address', required: true },
  { key: 'address2', label: 'Apartment, suite, etc.' },
  { key: 'city', label: 'City', required: true },
  { key: 'province', label: 'State or province' },
  { key: 'zip', label: 'Postal code' },
  { key: 'country', label: 'Country', required: true },
  { key: 'phone', label: 'Phone' },
] as const satisfies readonly { key: keyof Address; label: string; required?: boolean }[];
type AddressKey = (typeof ADDRESS_FIELDS)[number]['key'];
type AddressDraft = Record<AddressKey, string>;
/** Each part of an address is a line of a label: 255 characters is plenty, and what carriers accept. */
const ADDRESS_MAX = 255;

const draftOf = (address: Address | null): AddressDraft =>
  Object.fromEntries(ADDRESS_FIELDS.map(({ key }) => [key, address?.[key] ?? ''])) as AddressDraft;

/** What is wrong with the draft, per field: the street, city and country are needed, nothing is over-long. */
export function addressErrors(draft: AddressDraft): Partial<Record<AddressKey, string>> {
  const errors: Partial<Record<AddressKey, string>> = {};
  for (const field of ADDRESS_FIELDS) {
    const value = draft[field.key].trim();
    if ('required' in field && field.required && value === '')
      errors[field.key] = `Enter the ${field.label.toLowerCase()}.`;
    else if (value.length > ADDRESS_MAX) errors[field.key] = `At most ${ADDRESS_MAX} characters.`;
  }
  if (!errors.phone && draft.phone.trim() !== '' && !/^\+?[\d\s().-]{5,30}$/.test(draft.phone.trim()))
    errors.phone = 'Enter a phone number: digits, spaces and + ( ) - only.';
  return errors;
}

/**
 * The shipping address, edited while the order's units are not gone yet. Every field is sent (an emptied one as
 * null), so what is saved is what the form showed; the answer (with its timeline entry) replaces the order.
 */
export function ShippingAddressEdit({ order }: { order: OrderDetail }) {
  const trpc = useTRPC();
  const done = useOrderMutationDone();
  const [opened, setOpened] = useState(false);
  const [draft, setDraft] = useState<AddressDraft>(() => draftOf(order.shippingAddress));
  const [errors, setErrors] = useState<Partial<Record<AddressKey, string>>>({});
  const update = useMutation(
    trpc.orders.update.mutationOptions({
      onSuccess: async (updated) => {
        notify.success('Shipping address saved');
        setOpened(false);
        await done(updated);
      },
    }),
  );
  if (!CANCELLABLE_STATUSES.includes(order.status as OrderStatus)) return null;
  const open = () => {
    setDraft(draftOf(order.shippingAddress));
    setErrors({});
    update.reset();
    setOpened(true);
  };
  return (
    <>
      {/* Under the address, in a column a third of the card wide: the button says what it does to what is above it. */}
      <Button
        size="xs"
        variant="default"
        onClick={open}
        aria-label={order.shippingAddress ? 'Edit shipping address' : 'Add shipping address'}
      >
        {order.shippingAddress ? 'Edit' : 'Add'}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Shipping address" size="lg">
        <form
          aria-label="Shipping address"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const found = addressErrors(draft);
            setErrors(found);
            if (Object.keys(found).length > 0) return;
            const shipping_address = Object.fromEntries(
              ADDRESS_FIELDS.map(({ key }) => [key, draft[key].trim() === '' ? null : draft[key].trim()]),
            ) as Address;
            update.mutate({ id: order.id, shipping_address });
          }}
        >
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              {ADDRESS_FIELDS.map((field) => (
                <TextInput
                  key={field.key}
                  label={field.label}
                  withAsterisk={'required' in field && field.required}
                  value={draft[field.key]}
                  error={errors[field.key]}
                  onChange={(event) => {
                    const value = event.currentTarget.value;
                    setDraft((d) => ({ ...d, [field.key]: value }));
                    if (errors[field.key]) setErrors(({ [field.key]: _, ...rest }) => rest);
                  }}
                />
              ))}
            </SimpleGrid>
            {update.isError ? (
              <Alert color="red" variant="light" title="Not saved" role="alert">
                {errorMessage(update.error)}
              </Alert>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={update.isPending}>
                Save address
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
