import {
  ActionIcon,
  Alert,
  Button,
  Checkbox,
  Fieldset,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import {
  CHANNEL_LABELS,
  CHANNEL_TYPES,
  type ChannelType,
  FULFILLMENT_TYPE_LABELS,
  FULFILLMENT_TYPES,
  type FulfillmentType,
  ROUTING_LIMITS,
  type RoutingLocation,
  type RoutingRule,
} from '@switchyard/contracts';
import { useState } from 'react';
import { type RuleErrors, type RuleField, type RuleForm, ruleFromForm } from './rule-draft.ts';

export interface ChannelOption {
  id: string;
  name: string;
  type: ChannelType;
}

export interface RuleEditorProps {
  /** The rule being edited; null: the editor is closed. */
  initial: RuleForm | null;
  /** Whether this is a rule not yet in the draft (the title and button say "Add"). */
  isNew: boolean;
  otherRules: readonly { id: string; name: string }[];
  locations: readonly RoutingLocation[];
  channels: readonly ChannelOption[];
  onDone: (rule: RoutingRule) => void;
  onClose: () => void;
}

/** The rule editor in a dialog; keyed by the rule, so each opening starts from the rule as it is in the draft. */
export function RuleEditorModal(props: RuleEditorProps) {
  const { initial, isNew, onClose } = props;
  return (
    <Modal
      opened={initial !== null}
      onClose={onClose}
      title={isNew ? 'New rule' : `Edit rule ${initial?.name ?? ''}`}
      size="xl"
    >
      {initial ? <RuleEditor key={initial.id} {...props} initial={initial} /> : null}
    </Modal>
  );
}

const uniqueTrimmed = (values: string[]) => [...new Set(values.map((v) => v.trim()).filter(Boolean))];

export function RuleEditor({
  initial,
  isNew,
  otherRules,
  locations,
  channels,
  onDone,
  onClose,
}: RuleEditorProps & { initial: RuleForm }) {
  const [form, setForm] = useState<RuleForm>(initial);
  const [errors, setErrors] = useState<RuleErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const locationNames = new Map(locations.map((l) => [l.id, l.name]));
  const check = (next: RuleForm) => ruleFromForm(next, { otherRules, locations: locationNames });

  function set<K extends RuleField>(field: K, value: RuleForm[K]) {
    const next = { ...form, [field]: value };
    setForm(next);
    // Once a save was tried, messages follow each change.
    if (submitted) {
      const result = check(next);
      setErrors(result.ok ? {} : result.errors);
    }
  }
  const err = (field: RuleField) => errors[field];
  const locationOptions = locations.map((l) => ({
    value: l.id,
    label: `${l.name}${l.enabled ? '' : ' (disabled)'}${l.ships ? '' : ' (does not ship)'}`,
  }));
  // A saved rule may name a location that has since gone: it still shows, so it can be removed.
  for (const id of [...form.locationIds, ...form.excludeLocationIds])
    if (!locationNames.has(id) && !locationOptions.some((o) => o.value === id))
      locationOptions.push({ value: id, label: `Unknown location ${id}` });
  const isDefault = form.isDefault;

  return (
    <form
      noValidate
      aria-label={isNew ? 'New rule' : `Rule ${initial.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        setSubmitted(true);
        const result = check(form);
        if (!result.ok) {
          setErrors(result.errors);
          return;
        }
        onDone(result.rule);
      }}
    >
      <Stack gap="md">
        {submitted && Object.keys(errors).length > 0 ? (
          <Alert color="red" variant="light" title="Check the rule" role="alert">
            {Object.keys(errors).length === 1
              ? 'One field needs a change before the rule can be kept.'
              : `${Object.keys(errors).length} fields need a change before the rule can be kept.`}
          </Alert>
        ) : null}
        <Group align="flex-end" gap="md" wrap="wrap">
          <TextInput
            label="Rule name"
            required
            maxLength={100}
            value={form.name}
            onChange={(event) => set('name', event.currentTarget.value)}
            error={err('name')}
            style={{ flex: 1, minWidth: 240 }}
            data-autofocus
          />
          <Switch
            label="Enabled"
            checked={form.enabled}
            disabled={isDefault}
            description={isDefault ? 'The default rule is always on' : undefined}
            onChange={(event) => set('enabled', event.currentTarget.checked)}
            error={err('enabled')}
          />
        </Group>

        {isDefault ? (
          <Alert variant="light" color="blue" title="The default rule">
            It applies to every order no other rule takes, so it has no conditions. It stays last and cannot be deleted.
          </Alert>
        ) : (
          <Fieldset legend="When it applies">
            <Stack gap="sm">
              <Text size="xs" c="dimmed">
                Every condition you set must hold; leave one empty to ignore it. Within one condition any value matches.
                SKU, brand and product type are checked per line: other lines go on to the rules below.
              </Text>
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <MultiSelect
                  label="Channels"
                  placeholder={form.channelIds.length ? undefined : 'Any channel'}
                  data={channels.map((c) => ({ value: c.id, label: `${c.name} (${CHANNEL_LABELS[c.type]})` }))}
                  value={form.channelIds}
                  onChange={(value) => set('channelIds', value)}
                  searchable
                  clearable
                  nothingFoundMessage="No channel matches"
                  error={err('channelIds')}
                />
                <MultiSelect
                  label="Channel kinds"
                  placeholder={form.channelTypes.length ? undefined : 'Any kind'}
                  data={CHANNEL_TYPES.map((t) => ({ value: t, label: CHANNEL_LABELS[t] }))}
                  value={form.channelTypes}
                  onChange={(value) => set('channelTypes', value as ChannelType[])}
                  clearable
                  error={err('channelTypes')}
                />
              </SimpleGrid>
              <Checkbox.Group
                label="Fulfillment types"
                description="None ticked: any type. Pickup and curbside orders always go to their chosen store."
                value={form.fulfillmentTypes}
                onChange={(value) => set('fulfillmentTypes', value as FulfillmentType[])}
                error={err('fulfillmentTypes')}
              >
                <Group gap="lg" mt={6}>
                  {FULFILLMENT_TYPES.map((t) => (
                    <Checkbox key={t} value={t} label={FULFILLMENT_TYPE_LABELS[t]} />
                  ))}
                </Group>
              </Checkbox.Group>
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
                <TagsInput
                  label="Destination countries"
                  description="Two-letter codes, then Enter"
                  placeholder={form.countries.length ? undefined : 'US, CA…'}
                  value={form.countries}
                  onChange={(value) =>
                    set(
                      'countries',
                      uniqueTrimmed(value).map((c) => c.toUpperCase()),
                    )
                  }
                  error={err('countries')}
                  clearable
                />
                <TagsInput
                  label="Regions"
                  description="State or province codes"
                  placeholder={form.regions.length ? undefined : 'OR, WA…'}
                  value={form.regions}
                  onChange={(value) => set('regions', uniqueTrimmed(value))}
                  error={err('regions')}
                  clearable
                />
                <TagsInput
                  label="Postal code starts with"
                  description="Prefixes such as 97 or SW1"
                  value={form.postalPrefixes}
                  onChange={(value) => set('postalPrefixes', uniqueTrimmed(value))}
                  error={err('postalPrefixes')}
                  clearable
                />
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
                <TagsInput
                  label="SKUs"
                  value={form.skus}
                  onChange={(value) => set('skus', uniqueTrimmed(value))}
                  error={err('skus')}
                  clearable
                />
                <TagsInput
                  label="Brands"
                  value={form.brands}
                  onChange={(value) => set('brands', uniqueTrimmed(value))}
                  error={err('brands')}
                  clearable
                />
                <TagsInput
                  label="Product types"
                  value={form.productTypes}
                  onChange={(value) => set('productTypes', uniqueTrimmed(value))}
                  error={err('productTypes')}
                  clearable
                />
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <TextInput
                  label="Order value at least"
                  description="In dollars; empty: no minimum"
                  inputMode="decimal"
                  value={form.minOrderValue}
                  onChange={(event) => set('minOrderValue', event.currentTarget.value)}
                  error={err('minOrderValue')}
                />
                <TextInput
                  label="Order value at most"
                  description="In dollars; empty: no maximum"
                  inputMode="decimal"
                  value={form.maxOrderValue}
                  onChange={(event) => set('maxOrderValue', event.currentTarget.value)}
                  error={err('maxOrderValue')}
                />
              </SimpleGrid>
            </Stack>
          </Fieldset>
        )}

        <Fieldset legend="Where it ships from">
          <Stack gap="sm">
            <PreferredLocations
              value={form.locationIds}
              options={locationOptions}
              onChange={(value) => set('locationIds', value)}
              error={err('locationIds')}
            />
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <Switch
                label="Nearest location first"
                description="Try locations by distance to the destination (from postal codes and coordinates)"
                checked={form.nearestFirst}
                onChange={(event) => set('nearestFirst', event.currentTarget.checked)}
              />
              <Switch
                label="Keep the order whole"
                description="Prefer one location that has every line (fewest shipments)"
                checked={form.keepWhole}
                onChange={(event) => set('keepWhole', event.currentTarget.checked)}
              />
              <NumberInput
                label="At most this many shipments"
                description="1 never splits the order"
                min={1}
                max={ROUTING_LIMITS.maxShipments}
                allowDecimal={false}
                allowNegative={false}
                value={form.maxShipments}
                onChange={(value) => set('maxShipments', value)}
                error={err('maxShipments')}
              />
              <Switch
                label="Split a line across locations"
                description="A line's units may come from more than one location"
                checked={form.splitLines}
                onChange={(event) => set('splitLines', event.currentTarget.checked)}
              />
              <NumberInput
                label="Maximum distance (km)"
                description="Empty: no limit"
                min={1}
                max={ROUTING_LIMITS.maxDistanceKm}
                allowNegative={false}
                value={form.maxDistanceKm}
                onChange={(value) => set('maxDistanceKm', value)}
                error={err('maxDistanceKm')}
              />
              <NumberInput
                label="Hold back each location's last units"
                description="Units of a SKU kept for walk-in customers; 0: off"
                min={0}
                max={ROUTING_LIMITS.holdBack}
                allowDecimal={false}
                allowNegative={false}
                value={form.holdBackUnits}
                onChange={(value) => set('holdBackUnits', value)}
                error={err('holdBackUnits')}
              />
            </SimpleGrid>
            <MultiSelect
              label="Never ship from"
              placeholder={form.excludeLocationIds.length ? undefined : 'No location excluded'}
              data={locationOptions}
              value={form.excludeLocationIds}
              onChange={(value) => set('excludeLocationIds', value)}
              searchable
              clearable
              nothingFoundMessage="No location matches"
              error={err('excludeLocationIds')}
            />
          </Stack>
        </Fieldset>

        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit">{isNew ? 'Add rule' : 'Keep changes'}</Button>
        </Group>
        <Text size="xs" c="dimmed" ta="right">
          Changes go into the draft; nothing routes by them until you save a new version.
        </Text>
      </Stack>
    </form>
  );
}

/** The location group, in order of preference: add from a select, move up or down, remove. */
function PreferredLocations({
  value,
  options,
  onChange,
  error,
}: {
  value: string[];
  options: { value: string; label: string }[];
  onChange: (value: string[]) => void;
  error: string | undefined;
}) {
  const labelOf = (id: string) => options.find((o) => o.value === id)?.label ?? id;
  const move = (from: number, to: number) => {
    if (to < 0 || to >= value.length) return;
    const next = [...value];
    const [id] = next.splice(from, 1);
    next.splice(to, 0, id as string);
    onChange(next);
  };
  return (
    <Stack gap={6}>
      <Select
        label="Location group, in order of preference"
        description="Empty: every location, by its routing priority"
        placeholder="Add a location"
        data={options.filter((o) => !value.includes(o.value))}
        value={null}
        onChange={(id) => id && onChange([...value, id])}
        searchable
        nothingFoundMessage="No location left to add"
        error={error}
      />
      {value.length > 0 ? (
        <Stack gap={4} component="ol" aria-label="Preferred locations" style={{ margin: 0, paddingLeft: 20 }}>
          {value.map((id, index) => (
            <li key={id}>
              <Group gap="xs" wrap="nowrap">
                <Text size="sm" style={{ flex: 1 }}>
                  {labelOf(id)}
                </Text>
                <ActionIcon
                  variant="subtle"
                  aria-label={`Prefer ${labelOf(id)} earlier`}
                  disabled={index === 0}
                  onClick={() => move(index, index - 1)}
                >
                  ↑
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  aria-label={`Prefer ${labelOf(id)} later`}
                  disabled={index === value.length - 1}
                  onClick={() => move(index, index + 1)}
                >
                  ↓
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove ${labelOf(id)}`}
                  onClick={() => onChange(value.filter((v) => v !== id))}
                >
                  ✕
                </ActionIcon>
              </Group>
            </li>
          ))}
        </Stack>
      ) : null}
    </Stack>
  );
}
