import { Alert, Button, Group, Modal, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { StockAdjustInput, StockCountInput } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../../../lib/errors.ts';
import { countOf } from '../../../../lib/format.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';

export type StockChangeMode = 'adjust' | 'count';

export interface StockChangeTarget {
  mode: StockChangeMode;
  variantId: string;
  sku: string;
  locationId: string;
  locationName: string;
  onHand: number;
  reserved: number;
}

/** One id per intended change, made when the dialog opens: sending it twice applies the change once. */
function newRequestId(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto
    ? crypto.randomUUID()
    : `req-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** Adjust (+/− units) or count (set on hand) one variant at one location. */
export function StockChangeModal({ target, onClose }: { target: StockChangeTarget | null; onClose: () => void }) {
  const title = target
    ? `${target.mode === 'adjust' ? 'Adjust' : 'Count'} ${target.sku} at ${target.locationName}`
    : '';
  return (
    <Modal opened={target !== null} onClose={onClose} title={title}>
      {/* A new form (and request id) every time the dialog opens. */}
      {target ? (
        <StockChangeForm
          key={`${target.mode}:${target.variantId}:${target.locationId}`}
          target={target}
          onClose={onClose}
        />
      ) : null}
    </Modal>
  );
}

function StockChangeForm({ target, onClose }: { target: StockChangeTarget; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [requestId] = useState(newRequestId);
  const [amount, setAmount] = useState<string | number>('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [submitted, setSubmitted] = useState(false);
  const adjusting = target.mode === 'adjust';

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.products.get.pathFilter()),
      queryClient.invalidateQueries(trpc.products.list.pathFilter()),
    ]);
  const onSuccess = (result: { applied: boolean; onHand: number; delta: number }) => {
    if (result.applied)
      notify.success(
        `${target.sku} at ${target.locationName}: ${result.delta > 0 ? '+' : ''}${countOf(result.delta, 'unit')}, ${result.onHand} on hand.`,
      );
    else notify.info(`Nothing changed: ${target.sku} at ${target.locationName} has ${result.onHand} on hand.`);
    onClose();
    return refresh();
  };
  const adjust = useMutation(trpc.inventory.adjust.mutationOptions({ onSuccess }));
  const count = useMutation(trpc.inventory.count.mutationOptions({ onSuccess }));
  const mutation = adjusting ? adjust : count;

  const parse = (value: string | number) => {
    const base = {
      variantId: target.variantId,
      locationId: target.locationId,
      requestId,
      note: note.trim() || undefined,
    };
    const number = value === '' ? undefined : value;
    const result = adjusting
      ? StockAdjustInput.safeParse({ ...base, delta: number })
      : StockCountInput.safeParse({ ...base, count: number });
    if (result.success) return { data: result.data, message: undefined };
    const issue =
      result.error.issues.find((i) => i.path[0] === (adjusting ? 'delta' : 'count')) ?? result.error.issues[0];
    return { data: undefined, message: value === '' ? '* Required' : (issue?.message ?? 'Check this value') };
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    // A second click while the first is on its way sends nothing more; were it sent, the request id
    // would still make it apply once.
    if (mutation.isPending) return;
    const { data, message } = parse(amount);
    setError(message);
    if (!data) return;
    if ('delta' in data) adjust.mutate(data);
    else count.mutate(data);
  };

  const typed = typeof amount === 'number' ? amount : undefined;
  const after = typed === undefined ? undefined : adjusting ? target.onHand + typed : typed;

  return (
    <form onSubmit={submit} noValidate aria-label={adjusting ? 'Adjust stock' : 'Count stock'}>
      <Stack gap="md">
        <Text size="sm">
          Now {target.onHand} on hand, {target.reserved} reserved.
        </Text>
        <NumberInput
          label={adjusting ? 'Units to add or remove' : 'Counted on hand'}
          description={
            adjusting
              ? 'Use a minus sign to remove units, e.g. -2'
              : 'What is on the shelf now, reserved units included'
          }
          allowDecimal={false}
          allowNegative={adjusting}
          value={amount}
          onChange={(value) => {
            setAmount(value);
            if (submitted) setError(parse(value).message);
          }}
          error={error}
          aria-invalid={error ? true : undefined}
          data-autofocus
        />
        <TextInput
          label="Note"
          placeholder={adjusting ? 'e.g. damaged in the back room' : 'e.g. monthly stock take'}
          value={note}
          maxLength={500}
          onChange={(event) => setNote(event.currentTarget.value)}
        />
        {after !== undefined && !error ? (
          <Text size="sm" c={after < target.reserved ? 'orange' : 'dimmed'} aria-live="polite">
            On hand goes from {target.onHand} to {after}.
            {after < target.reserved
              ? ` That is below the ${countOf(target.reserved, 'unit')} reserved for orders.`
              : ''}
          </Text>
        ) : null}
        {mutation.isError ? (
          <Alert color="red" variant="light" title="Could not change the stock" role="alert">
            {errorMessage(mutation.error)}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {adjusting ? 'Adjust' : 'Save count'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
