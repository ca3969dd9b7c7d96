import {
  ActionIcon,
  Alert,
  Button,
  Group,
  NumberInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  type DryRunInput,
  FULFILLMENT_TYPE_LABELS,
  FULFILLMENT_TYPES,
  type FulfillmentType,
  HypotheticalOrder,
  type RoutingLocation,
  type RoutingRule,
  SEARCH_DEBOUNCE_MS,
} from '@switchyard/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { TraceView } from '../../../../components/routing-trace.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { fromMinorUnits, toMinorUnits } from '../../../subscription/-components/money.ts';
import { allocationStatusLabel } from '../../orders/-components/order-parts.tsx';
import { ROUTING_CURRENCY } from './rule-draft.ts';
import type { ChannelOption } from './rule-editor.tsx';

export type RuleSource = 'draft' | 'live';

interface LineDraft {
  key: number;
  sku: string;
  quantity: number | string;
}

interface TypedOrder {
  channelId: string | null;
  fulfillmentType: FulfillmentType;
  pickupLocationId: string | null;
  country: string;
  region: string;
  postalCode: string;
  total: string;
  lines: LineDraft[];
}

type TypedErrors = Partial<Record<'pickupLocationId' | 'country' | 'total' | 'lines', string>> & {
  line?: Record<number, { sku?: string; quantity?: string }>;
};

const EMPTY_ORDER: TypedOrder = {
  channelId: null,
  fulfillmentType: 'ship',
  pickupLocationId: null,
  country: 'US',
  region: '',
  postalCode: '',
  total: '',
  lines: [{ key: 1, sku: '', quantity: 1 }],
};

/** The typed-in order as the dry run takes it, or a message per field (HypotheticalOrder is the check). */
export function hypotheticalFrom(
  order: TypedOrder,
): { ok: true; value: HypotheticalOrder } | { ok: false; errors: TypedErrors } {
  const errors: TypedErrors = {};
  const country = order.country.trim().toUpperCase();
  if (country && !/^[A-Z]{2}$/.test(country)) errors.country = 'Use a two-letter country code (US, CA, GB…)';
  let total: number | null = null;
  if (order.total.trim()) {
    const minor = toMinorUnits(order.total, ROUTING_CURRENCY);
    if (minor === undefined) errors.total = 'Enter an amount such as 25 or 25.50';
    else total = minor;
  }
  if (order.fulfillmentType !== 'ship' && !order.pickupLocationId) errors.pickupLocationId = 'Choose the pickup store';
  const candidate = {
    channelId: order.channelId,
    fulfillmentType: order.fulfillmentType,
    pickupLocationId: order.fulfillmentType === 'ship' ? null : order.pickupLocationId,
    country: country || null,
    region: order.region.trim() || null,
    postalCode: order.postalCode.trim() || null,
    total,
    lines: order.lines.map((l) => ({
      sku: l.sku,
      quantity:
        typeof l.quantity === 'number' ? l.quantity : l.quantity.trim() === '' ? Number.NaN : Number(l.quantity),
    })),
  };
  const parsed = HypotheticalOrder.safeParse(candidate);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const [head, index, field] = issue.path;
      if (head === 'lines' && typeof index === 'number' && (field === 'sku' || field === 'quantity')) {
        errors.line ??= {};
        errors.line[index] ??= {};
        const entry = errors.line[index];
        entry[field] ??= field === 'quantity' && issue.code === 'invalid_type' ? 'Enter a quantity' : issue.message;
      } else if (head === 'lines') errors.lines ??= issue.message;
      else if (head === 'country') errors.country ??= issue.message;
    }
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, value: candidate as HypotheticalOrder };
}

export interface DryRunPanelProps {
  draft: readonly RoutingRule[];
  hasChanges: boolean;
  liveVersion: number;
  locations: readonly RoutingLocation[];
  channels: readonly ChannelOption[];
  /** An order chosen elsewhere (a replay's example) to try. */
  preset?: { orderId: string; label: string } | null;
}

/** Route an order, or one typed in, by the draft or the live rules, reserving nothing, and read why. */
export function DryRunPanel({ draft, hasChanges, liveVersion, locations, channels, preset }: DryRunPanelProps) {
  const trpc = useTRPC();
  const [source, setSource] = useState<RuleSource>('draft');
  const [mode, setMode] = useState<'order' | 'typed'>(preset ? 'order' : 'typed');
  const [picked, setPicked] = useState<{ id: string; label: string } | null>(
    preset ? { id: preset.orderId, label: preset.label } : null,
  );
  const [pickError, setPickError] = useState<string | null>(null);
  const [typed, setTyped] = useState<TypedOrder>(EMPTY_ORDER);
  const [typedErrors, setTypedErrors] = useState<TypedErrors>({});
  const [nextKey, setNextKey] = useState(2);
  const dryRun = useMutation(trpc.routing.dryRun.mutationOptions());
  const locationName = new Map(locations.map((l) => [l.id, l.name]));

  function run() {
    const ruleSet: DryRunInput['ruleSet'] =
      source === 'draft' ? { source: 'draft', rules: [...draft] } : { source: 'live' };
    if (mode === 'order') {
      if (!picked) {
        setPickError('Choose an order to try');
        return;
      }
      dryRun.mutate({ ruleSet, order: { orderId: picked.id } });
      return;
    }
    const checked = hypotheticalFrom(typed);
    setTypedErrors(checked.ok ? {} : checked.errors);
    if (checked.ok) dryRun.mutate({ ruleSet, order: { hypothetical: checked.value } });
  }

  const setLine = (key: number, patch: Partial<LineDraft>) =>
    setTyped((t) => ({ ...t, lines: t.lines.map((l) => (l.key === key ? { ...l, ...patch } : l)) }));
  const result = dryRun.data;

  return (
    <SectionCard
      title="Dry run"
      description="Route an order by the rules without reserving anything, and read why each location was or was not chosen."
    >
      <form
        aria-label="Dry run"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          run();
        }}
      >
        <Stack gap="md">
          <Group gap="lg" wrap="wrap" align="flex-end">
            <Stack gap={4}>
              <Text size="sm" fw={500} id="dry-run-rules">
                Rules
              </Text>
              <SegmentedControl
                aria-labelledby="dry-run-rules"
                value={source}
                onChange={(value) => setSource(value as RuleSource)}
                data={[
                  { value: 'draft', label: hasChanges ? 'Draft (unsaved changes)' : 'Draft' },
                  {
                    value: 'live',
                    label: liveVersion === 0 ? 'Live (built-in default)' : `Live (version ${liveVersion})`,
                  },
                ]}
              />
            </Stack>
            <Stack gap={4}>
              <Text size="sm" fw={500} id="dry-run-order">
                Order
              </Text>
              <SegmentedControl
                aria-labelledby="dry-run-order"
                value={mode}
                onChange={(value) => setMode(value as 'order' | 'typed')}
                data={[
                  { value: 'typed', label: 'Type one in' },
                  { value: 'order', label: 'Pick an order' },
                ]}
              />
            </Stack>
          </Group>

          {mode === 'order' ? (
            <OrderPicker
              value={picked}
              onChange={(value) => {
                setPicked(value);
                setPickError(null);
              }}
              error={pickError}
            />
          ) : (
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
                <Select
                  label="Channel"
                  placeholder="No channel"
                  data={channels.map((c) => ({ value: c.id, label: c.name }))}
                  value={typed.channelId}
                  onChange={(value) => setTyped((t) => ({ ...t, channelId: value }))}
                  clearable
                />
                <Select
                  label="Fulfillment type"
                  data={FULFILLMENT_TYPES.map((t) => ({ value: t, label: FULFILLMENT_TYPE_LABELS[t] }))}
                  value={typed.fulfillmentType}
                  onChange={(value) => value && setTyped((t) => ({ ...t, fulfillmentType: value as FulfillmentType }))}
                  allowDeselect={false}
                />
                {typed.fulfillmentType === 'ship' ? (
                  <TextInput
                    label="Order total (optional)"
                    description="Dollars; empty: the lines' prices"
                    inputMode="decimal"
                    value={typed.total}
                    onChange={(event) => {
                      const total = event.currentTarget.value;
                      setTyped((t) => ({ ...t, total }));
                    }}
                    error={typedErrors.total}
                  />
                ) : (
                  <Select
                    label="Pickup store"
                    required
                    data={locations.map((l) => ({ value: l.id, label: l.name }))}
                    value={typed.pickupLocationId}
                    onChange={(value) => setTyped((t) => ({ ...t, pickupLocationId: value }))}
                    error={typedErrors.pickupLocationId}
                  />
                )}
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
                <TextInput
                  label="Destination country"
                  description="Two letters"
                  maxLength={2}
                  value={typed.country}
                  onChange={(event) => {
                    const country = event.currentTarget.value.toUpperCase();
                    setTyped((t) => ({ ...t, country }));
                  }}
                  error={typedErrors.country}
                />
                <TextInput
                  label="Region"
                  description="State or province code"
                  value={typed.region}
                  onChange={(event) => {
                    const region = event.currentTarget.value;
                    setTyped((t) => ({ ...t, region }));
                  }}
                />
                <TextInput
                  label="Postal code"
                  description="Places the destination for distances"
                  value={typed.postalCode}
                  onChange={(event) => {
                    const postalCode = event.currentTarget.value;
                    setTyped((t) => ({ ...t, postalCode }));
                  }}
                />
              </SimpleGrid>
              <Stack gap={6} component="fieldset" style={{ border: 0, padding: 0, margin: 0 }}>
                <Text component="legend" size="sm" fw={500}>
                  Lines
                </Text>
                {typed.lines.map((line, index) => (
                  <Group key={line.key} gap="sm" align="flex-start" wrap="nowrap">
                    <TextInput
                      label={`SKU of line ${index + 1}`}
                      value={line.sku}
                      onChange={(event) => setLine(line.key, { sku: event.currentTarget.value })}
                      error={typedErrors.line?.[index]?.sku}
                      style={{ flex: 1 }}
                    />
                    <NumberInput
                      label={`Quantity of line ${index + 1}`}
                      min={1}
                      allowDecimal={false}
                      allowNegative={false}
                      value={line.quantity}
                      onChange={(value) => setLine(line.key, { quantity: value })}
                      error={typedErrors.line?.[index]?.quantity}
                      w={150}
                    />
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      mt={28}
                      aria-label={`Remove line ${index + 1}`}
                      disabled={typed.lines.length === 1}
                      onClick={() => setTyped((t) => ({ ...t, lines: t.lines.filter((l) => l.key !== line.key) }))}
                    >
                      ✕
                    </ActionIcon>
                  </Group>
                ))}
                {typedErrors.lines ? (
                  <Text size="sm" c="var(--mantine-color-red-text)">
                    {typedErrors.lines}
                  </Text>
                ) : null}
                <Group>
                  <Button
                    variant="default"
                    size="xs"
                    onClick={() => {
                      setTyped((t) => ({ ...t, lines: [...t.lines, { key: nextKey, sku: '', quantity: 1 }] }));
                      setNextKey((k) => k + 1);
                    }}
                  >
                    Add a line
                  </Button>
                </Group>
              </Stack>
            </Stack>
          )}

          <Group>
            <Button type="submit" loading={dryRun.isPending}>
              Run dry run
            </Button>
          </Group>
        </Stack>
      </form>

      {dryRun.isError ? (
        <Alert color="red" variant="light" title="The dry run did not run" role="alert">
          {errorMessage(dryRun.error)}
        </Alert>
      ) : null}
      {result ? (
        <Stack gap="sm" aria-live="polite">
          <Text fw={600}>Decision</Text>
          {result.current && result.current.length > 0 ? (
            <Text size="sm" c="dimmed">
              Now:{' '}
              {result.current
                .map(
                  (c) =>
                    `${c.quantity} at ${c.locationId ? (locationName.get(c.locationId) ?? c.locationId) : 'no location'} (${allocationStatusLabel(c.status).toLowerCase()})`,
                )
                .join(' · ')}
            </Text>
          ) : null}
          <TraceView trace={result.trace} />
        </Stack>
      ) : null}
    </SectionCard>
  );
}

/** Finds an order by number, customer or e-mail (the orders list's search), every status. */
function OrderPicker({
  value,
  onChange,
  error,
}: {
  value: { id: string; label: string } | null;
  onChange: (value: { id: string; label: string } | null) => void;
  error: string | null;
}) {
  const trpc = useTRPC();
  const [search, setSearch] = useState('');
  // Choosing an order writes its label into the box: that is not a new search.
  const [debounced] = useDebouncedValue(search === value?.label ? '' : search.trim(), SEARCH_DEBOUNCE_MS);
  const orders = useQuery(
    trpc.orders.list.queryOptions({ status: -1, search: debounced || undefined, limit: 10, offset: 0 }),
  );
  const options = (orders.data?.results ?? []).map((o) => ({
    value: o.id,
    label: `${o.number} · ${o.customerName ?? o.customerEmail ?? 'Guest'} · ${fromMinorUnits(o.total, o.currency)} ${o.currency}`,
  }));
  if (value && !options.some((o) => o.value === value.id)) options.unshift({ value: value.id, label: value.label });
  return (
    <Select
      label="Order"
      description="Search by number, customer or e-mail"
      placeholder="Search orders"
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      // The server has searched already.
      filter={({ options: all }) => all}
      data={options}
      value={value?.id ?? null}
      onChange={(id, option) => onChange(id ? { id, label: option?.label ?? id } : null)}
      nothingFoundMessage={orders.isPending ? 'Searching…' : 'No order matches'}
      error={error ?? (orders.isError ? errorMessage(orders.error) : undefined)}
      clearable
      maw={520}
    />
  );
}
