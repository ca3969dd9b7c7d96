import {
  Button,
  Checkbox,
  Group,
  NumberInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
} from '@mantine/core';
import {
  CARRIER_SERVICES,
  type LabelSize,
  OUNCES_PER,
  PackageInput,
  type ShippingLabelSettings,
  WEIGHT_UNITS,
  type WeightUnit,
} from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../lib/errors.ts';
import { notify } from '../../lib/toast.ts';
import { useTRPC } from '../../lib/trpc.ts';
import { QueryError } from '../query-error.tsx';
import { SectionCard } from '../section-card.tsx';
import { serviceName } from './shipment-api.ts';

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Settings → Fulfillment, labels: the label size, the unit weights are typed in, the parcel a label starts from,
 * and the carrier services rates are shopped from (none ticked: every service).
 */
export function LabelSettingsSection() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.shipments.settings.queryOptions());
  return (
    <SectionCard
      title="Labels"
      description="What a new label starts from, and which carrier services its rates come from."
    >
      {settings.isPending ? (
        <Skeleton height={160} />
      ) : settings.isError ? (
        <QueryError
          title="Could not load the label settings"
          error={settings.error}
          onRetry={settings.refetch}
          retrying={settings.isFetching}
        />
      ) : (
        <LabelSettingsForm key={JSON.stringify(settings.data)} saved={settings.data} />
      )}
    </SectionCard>
  );
}

function LabelSettingsForm({ saved }: { saved: ShippingLabelSettings }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [size, setSize] = useState<LabelSize>(saved.label_size);
  const [unit, setUnit] = useState<WeightUnit>(saved.weight_unit);
  const pkg = saved.default_package;
  const [weight, setWeight] = useState<number | string>(pkg ? round2(pkg.weight / OUNCES_PER[saved.weight_unit]) : '');
  const [sides, setSides] = useState<Record<'length' | 'width' | 'height', number | string>>({
    length: pkg?.length ?? '',
    width: pkg?.width ?? '',
    height: pkg?.height ?? '',
  });
  const [services, setServices] = useState<string[]>(saved.services);
  const [tried, setTried] = useState(false);
  const num = (v: number | string) => (v === '' ? undefined : Number(v));
  const parcel =
    weight === ''
      ? null
      : PackageInput.safeParse({
          weight: round2(Number(weight) * OUNCES_PER[unit]),
          length: num(sides.length),
          width: num(sides.width),
          height: num(sides.height),
        });
  const problem = parcel && !parcel.success ? parcel.error.issues[0]?.message : undefined;
  const save = useMutation(
    trpc.shipments.updateSettings.mutationOptions({
      onSuccess: async () => {
        notify.success('Label settings saved.');
        await queryClient.invalidateQueries(trpc.shipments.settings.queryFilter());
      },
      onError: (e) => notify.error(errorMessage(e)),
    }),
  );
  const submit = () => {
    setTried(true);
    if (problem) return;
    save.mutate({
      label_size: size,
      weight_unit: unit,
      default_package: parcel?.success ? parcel.data : null,
      services,
    });
  };
  return (
    <Stack gap="md" data-testid="label-settings">
      <Group gap="xl" align="flex-end" wrap="wrap">
        <Stack gap={2}>
          <Text size="sm" fw={500} id="settings-label-size">
            Label size
          </Text>
          <SegmentedControl
            aria-labelledby="settings-label-size"
            value={size}
            onChange={(v) => setSize(v as LabelSize)}
            data={[
              { value: '4x6', label: '4×6 in' },
              { value: 'letter', label: 'Letter' },
            ]}
          />
        </Stack>
        <Select
          label="Weight unit"
          data={WEIGHT_UNITS.map((u) => ({ value: u, label: u }))}
          value={unit}
          onChange={(v) => v && setUnit(v as WeightUnit)}
          allowDeselect={false}
          w={120}
        />
      </Group>
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Default parcel
        </Text>
        <Group gap="sm" align="flex-start" wrap="wrap">
          <NumberInput
            label={`Weight (${unit})`}
            min={0}
            decimalScale={2}
            value={weight}
            onChange={setWeight}
            error={tried ? problem : undefined}
            w={140}
          />
          {(['length', 'width', 'height'] as const).map((side) => (
            <NumberInput
              key={side}
              label={`${side[0]?.toUpperCase()}${side.slice(1)} (in)`}
              min={0}
              decimalScale={1}
              value={sides[side]}
              onChange={(v) => setSides((s) => ({ ...s, [side]: v }))}
              w={110}
            />
          ))}
        </Group>
      </Stack>
      <Checkbox.Group
        label="Services offered"
        description="Rates are shopped from these. None ticked: every service the carrier has."
        value={services}
        onChange={setServices}
      >
        <SimpleGrid cols={{ base: 1, sm: 3 }} mt="xs">
          {CARRIER_SERVICES.map((key) => {
            const [carrier, service] = key.split(':');
            return <Checkbox key={key} value={key} label={serviceName(carrier ?? null, service ?? null)} />;
          })}
        </SimpleGrid>
      </Checkbox.Group>
      <Group>
        <Button onClick={submit} loading={save.isPending}>
          Save label settings
        </Button>
      </Group>
    </Stack>
  );
}
