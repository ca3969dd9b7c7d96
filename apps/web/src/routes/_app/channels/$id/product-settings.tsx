import { Checkbox, Group, NumberInput, Select, Stack, Switch, TextInput } from '@mantine/core';
import { CHANNEL_LABELS, type ProductSettings } from '@switchyard/contracts';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { SettingsForm } from '../-components/settings-form.tsx';
import { useLoadedChannel } from '../-components/use-channel.ts';

export const Route = createFileRoute('/_app/channels/$id/product-settings')({
  component: ProductSettingsPage,
});

const PRICE_RULES: { value: ProductSettings['priceRule']['kind']; label: string }[] = [
  { value: 'none', label: 'Same as in Switchyard' },
  { value: 'percent', label: 'Adjust by a percentage' },
  { value: 'amount', label: 'Adjust by an amount' },
];

const SYNC_FIELDS: { key: keyof ProductSettings['syncFields']; label: string }[] = [
  { key: 'title', label: 'Title' },
  { key: 'description', label: 'Description' },
  { key: 'price', label: 'Price' },
  { key: 'images', label: 'Images' },
  { key: 'barcode', label: 'Barcode' },
];

/** A number the input holds, or undefined while it is blank (the schema then asks for one). */
const asNumber = (value: string | number) => (typeof value === 'number' ? value : undefined);

/**
 * An amount kept in minor units (cents) and shown in whole units. The text is the input's own while typing
 * ("2." is on its way to 2.50), so it is not rebuilt from the number after every key.
 */
function AmountInput({
  minorUnits,
  disabled,
  onChange,
  error,
}: {
  minorUnits: number | undefined;
  disabled: boolean;
  onChange: (minorUnits: number | undefined) => void;
  error?: string;
}) {
  const [text, setText] = useState<string | number>(Number.isFinite(minorUnits) ? (minorUnits as number) / 100 : '');
  return (
    <NumberInput
      label="Amount"
      description="In your currency; a minus sign lowers prices"
      decimalScale={2}
      value={text}
      disabled={disabled}
      onChange={(value) => {
        setText(value);
        const amount = asNumber(value);
        onChange(amount === undefined ? undefined : Math.round(amount * 100));
      }}
      error={error}
      w={200}
    />
  );
}

function ProductSettingsPage() {
  const channel = useLoadedChannel(Route.useParams().id);
  const label = CHANNEL_LABELS[channel.type];
  return (
    <SettingsForm channel={channel} section="product" label="Product settings">
      {(form) => {
        const rule = form.values.priceRule;
        return (
          <>
            <SectionCard title="Price" description={`The price Switchyard sends to ${label} for each variant.`}>
              <Group align="flex-start" gap="md" wrap="wrap">
                <Select
                  label="Price on this channel"
                  data={PRICE_RULES}
                  value={rule.kind}
                  allowDeselect={false}
                  disabled={form.disabled}
                  onChange={(kind) =>
                    form.set('priceRule', {
                      kind: (kind ?? 'none') as ProductSettings['priceRule']['kind'],
                      // A percentage and an amount are different units: a new kind starts from no change.
                      value: kind === rule.kind ? rule.value : 0,
                    })
                  }
                  w={260}
                />
                {rule.kind === 'percent' ? (
                  <NumberInput
                    label="Percentage"
                    description="Use a minus sign to lower prices"
                    suffix=" %"
                    allowDecimal={false}
                    value={rule.value}
                    disabled={form.disabled}
                    onChange={(value) => form.set('priceRule', { ...rule, value: asNumber(value) as number })}
                    error={form.errorAt('priceRule.value')}
                    w={200}
                  />
                ) : rule.kind === 'amount' ? (
                  <AmountInput
                    minorUnits={rule.value}
                    disabled={form.disabled}
                    onChange={(value) => form.set('priceRule', { ...rule, value: value as number })}
                    error={form.errorAt('priceRule.value')}
                  />
                ) : null}
              </Group>
            </SectionCard>
            <SectionCard
              title="Title"
              description="Placeholders {title}, {brand} and {variant} are filled in for each listing."
            >
              <TextInput
                label="Title on this channel"
                required
                maxLength={300}
                value={form.values.titleTemplate}
                disabled={form.disabled}
                onChange={(event) => form.set('titleTemplate', event.currentTarget.value)}
                error={form.errorAt('titleTemplate')}
                maw={520}
              />
            </SectionCard>
            <SectionCard
              title="What product sync writes"
              description={`The fields Switchyard keeps up to date at ${label}.`}
            >
              <Stack gap="xs" role="group" aria-label="Fields to sync">
                {SYNC_FIELDS.map((field) => (
                  <Checkbox
                    key={field.key}
                    label={field.label}
                    checked={form.values.syncFields[field.key]}
                    disabled={form.disabled}
                    onChange={(event) =>
                      form.set('syncFields', { ...form.values.syncFields, [field.key]: event.currentTarget.checked })
                    }
                  />
                ))}
              </Stack>
              <Switch
                label="Publish missing products"
                description={`Create listings at ${label} for your products it does not have yet.`}
                checked={form.values.publishMissing}
                disabled={form.disabled}
                onChange={(event) => form.set('publishMissing', event.currentTarget.checked)}
              />
            </SectionCard>
          </>
        );
      }}
    </SettingsForm>
  );
}
