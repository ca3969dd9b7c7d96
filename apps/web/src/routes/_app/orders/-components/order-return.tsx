import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Group,
  Modal,
  NumberInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { type OrderDetail, unitRefund } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { formatMoney } from '../../../subscription/-components/money.ts';
import { allLocationsOptions } from '../../dynamic-buffers/-components/buffer-api.ts';
import { orderReturnsOptions, refreshReturns } from '../../returns/-components/return-api.ts';
import { ReturnStatusBadge, storesOf } from '../../returns/-components/return-parts.tsx';

/** Orders whose units left the store (partly fulfilled, fulfilled, picked up): a return can be made from them. */
const RETURNABLE = [2, 3, 5];

const leftOf = (line: OrderDetail['lines'][number]) =>
  Math.max(line.quantity - line.cancelledQty - line.refundedQty, 0);

/** Cents from what the merchant typed in the currency's units (2 decimals). */
const toMinor = (value: string | number) => Math.round(Number(value || 0) * 100);

interface LineChoice {
  qty: number;
  damaged: boolean;
}

/**
 * Create return: lines and quantities, the return store, damaged units (not restocked), and the refund: the lines'
 * value, refunded shipping and an adjustment (negative for a fee). The units are back on sale at once; the refund
 * goes to the channel by a job whose outcome shows on the timeline and on /syncs/.
 */
export function CreateReturnButton({ order }: { order: OrderDetail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const locations = useQuery({ ...allLocationsOptions(trpc), enabled: opened });
  const [choices, setChoices] = useState<Record<string, LineChoice>>({});
  const [store, setStore] = useState<string | null>(null);
  const [shipping, setShipping] = useState<string | number>(0);
  const [adjustment, setAdjustment] = useState<string | number>(0);
  const [reason, setReason] = useState('');
  const create = useMutation(
    trpc.returns.create.mutationOptions({
      onSuccess: async (ret) => {
        notify.success(
          ret.status === 'FINISHED'
            ? `Return made: ${ret.items.filter((i) => i.restock).reduce((s, i) => s + i.qty, 0)} back on sale`
            : 'Return made',
        );
        close();
        await refreshReturns(queryClient, trpc);
      },
    }),
  );
  function close() {
    create.reset();
    setChoices({});
    setStore(null);
    setShipping(0);
    setAdjustment(0);
    setReason('');
    setOpened(false);
  }
  if (!RETURNABLE.includes(order.status) || !order.lines.some((l) => leftOf(l) > 0)) return null;
  const money = (minor: number) => formatMoney(minor, order.currency);
  const linesTotal = order.lines.reduce((s, l) => s + (choices[l.id]?.qty ?? 0) * unitRefund(l), 0);
  const refund = linesTotal + toMinor(shipping) + toMinor(adjustment);
  const chosen = order.lines.filter((l) => (choices[l.id]?.qty ?? 0) > 0);
  // The store the order was allocated at is the first offered: where the units usually go back.
  const allocated = order.lines.flatMap((l) => l.allocations.map((a) => a.locationId)).find(Boolean) ?? null;
  const storeValue = store ?? allocated;
  const set = (lineId: string, next: Partial<LineChoice>) =>
    setChoices((prev) => ({ ...prev, [lineId]: { qty: 0, damaged: false, ...prev[lineId], ...next } }));
  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        Create return
      </Button>
      <Modal opened={opened} onClose={close} title={`Return from order ${order.number}`} size="xl">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (!storeValue) return;
            create.mutate({
              order_id: order.id,
              location_id: storeValue,
              lines: chosen.map((l) => ({
                line_id: l.id,
                qty: choices[l.id]?.qty ?? 0,
                restock: !choices[l.id]?.damaged,
              })),
              shipping: toMinor(shipping),
              adjustment: toMinor(adjustment),
              reason: reason.trim() || undefined,
            });
          }}
        >
          <Stack gap="md">
            {/* Four columns do not fit a phone-wide dialog: they scroll sideways rather than cut off the refund. */}
            <Table.ScrollContainer minWidth={520}>
              <Table aria-label="Lines to return" fz="sm">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Line</Table.Th>
                    <Table.Th scope="col">Returned</Table.Th>
                    <Table.Th scope="col">Damaged</Table.Th>
                    <Table.Th scope="col" style={{ textAlign: 'right' }}>
                      Refund
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {order.lines.map((line) => {
                    const left = leftOf(line);
                    const choice = choices[line.id] ?? { qty: 0, damaged: false };
                    const label = line.sku ?? line.title;
                    return (
                      <Table.Tr key={line.id}>
                        <Table.Td>
                          <Text size="sm" fw={500} ff={line.sku ? 'monospace' : undefined}>
                            {label}
                          </Text>
                          <Text size="xs" c="dimmed">
                            {left} of {line.quantity} returnable · {money(unitRefund(line))} each
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <NumberInput
                            aria-label={`Units of ${label} returned`}
                            min={0}
                            max={left}
                            allowDecimal={false}
                            allowNegative={false}
                            clampBehavior="strict"
                            disabled={left === 0}
                            value={choice.qty}
                            onChange={(value) => set(line.id, { qty: Number(value) || 0 })}
                            w={90}
                          />
                        </Table.Td>
                        <Table.Td>
                          <Checkbox
                            aria-label={`${label} is damaged: do not restock`}
                            label="Do not restock"
                            checked={choice.damaged}
                            disabled={choice.qty === 0}
                            onChange={(event) => set(line.id, { damaged: event.currentTarget.checked })}
                          />
                        </Table.Td>
                        <Table.Td style={{ textAlign: 'right' }}>{money(choice.qty * unitRefund(line))}</Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Group gap="md" align="flex-end" wrap="wrap">
              <Select
                label="Return store"
                description="Where the units go back on hand"
                placeholder={locations.isPending ? 'Loading…' : 'Choose a location'}
                data={(locations.data?.results ?? []).map((l) => ({
                  value: l.id,
                  label: `${l.name} (${l.store_id})${l.enabled ? '' : ' – disabled'}`,
                }))}
                value={storeValue}
                onChange={setStore}
                allowDeselect={false}
                required
                // Takes the row's room left: at a fixed 260 px a store's name and id were cut ("Downtown Store (Q95AO…").
                miw={260}
                style={{ flex: '1 1 260px' }}
              />
              <NumberInput
                label="Shipping refunded"
                min={0}
                decimalScale={2}
                allowNegative={false}
                value={shipping}
                onChange={setShipping}
                w={160}
              />
              <NumberInput
                label="Adjustment"
                description="Negative for a restocking fee"
                decimalScale={2}
                value={adjustment}
                onChange={setAdjustment}
                w={180}
              />
            </Group>
            <TextInput
              label="Reason (optional)"
              value={reason}
              onChange={(event) => setReason(event.currentTarget.value)}
              maxLength={500}
            />
            <Text size="sm" aria-live="polite">
              Refund to the customer:{' '}
              <Text span fw={700}>
                {money(refund)}
              </Text>
              {order.channel ? ` (written back to ${order.channel.name})` : ''}
            </Text>
            {create.isError ? (
              <Alert color="red" variant="light" title="The return was not made" role="alert">
                {errorMessage(create.error)}
              </Alert>
            ) : null}
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" disabled={chosen.length === 0 || !storeValue} loading={create.isPending}>
                Create return
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/** The order's returns, with where each stands (refund written back or not). */
export function OrderReturnsSection({ orderId }: { orderId: string }) {
  const trpc = useTRPC();
  const returns = useQuery(orderReturnsOptions(trpc, orderId));
  if (!returns.data || returns.data.length === 0) return null;
  return (
    <SectionCard title="Returns">
      {/* Five columns do not fit a phone's card: they scroll sideways rather than squeeze the status badge. */}
      <Table.ScrollContainer minWidth={640}>
        <Table aria-label="Returns of this order" fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Return</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Store(s)</Table.Th>
              <Table.Th scope="col">Refund at the channel</Table.Th>
              <Table.Th scope="col" style={{ textAlign: 'right' }}>
                Total
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {returns.data.map((ret) => (
              <Table.Tr key={ret.id}>
                <Table.Td>
                  <Anchor
                    fz="sm"
                    renderRoot={(props) => (
                      <Link {...props} to="/returns" search={{ external_id: ret.external_id, limit: 25, offset: 0 }} />
                    )}
                  >
                    {ret.external_id}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <ReturnStatusBadge status={ret.status} message={ret.message} />
                </Table.Td>
                <Table.Td>{storesOf(ret) || '—'}</Table.Td>
                <Table.Td>
                  {ret.refund_state === 'ok'
                    ? 'Done'
                    : ret.refund_state === 'pending'
                      ? 'Being sent…'
                      : ret.refund_state === 'failed'
                        ? `Failed: ${ret.refund_message ?? ''}`
                        : 'Made at the channel'}
                </Table.Td>
                <Table.Td style={{ textAlign: 'right' }}>{formatMoney(ret.total, ret.currency)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </SectionCard>
  );
}
