import { Alert, Button, Group, NumberInput, SegmentedControl, Stack, Text } from '@mantine/core';
import {
  type LabelSize,
  OUNCES_PER,
  PackageInput,
  SHIPMENT_MAX_PACKAGES,
  type Shipment,
  type ShippingLabelSettings,
  type WeightUnit,
} from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { errorMessage } from '../../lib/errors.ts';
import { notify } from '../../lib/toast.ts';
import { useTRPC } from '../../lib/trpc.ts';
import { RatesTable } from './rates-table.tsx';
import {
  NOTHING_TO_SHIP,
  type Quantities,
  quantityOf,
  quantityProblem,
  type ShipLine,
  ShipQuantities,
  shipItems,
} from './ship-quantities.tsx';
import { fetchLabel, openPdf, refreshShipments, serviceName } from './shipment-api.ts';

interface Draft {
  weight: number | string;
  length: number | string;
  width: number | string;
  height: number | string;
}

const EMPTY: Draft = { weight: '', length: '', width: '', height: '' };
const num = (v: number | string) => (v === '' || v === undefined ? undefined : Number(v));

/** A weight typed in `unit` as ounces (2 decimals). */
const toOunces = (v: number | string, unit: WeightUnit) => Math.round(Number(v) * OUNCES_PER[unit] * 100) / 100;
const fromOunces = (oz: number, unit: WeightUnit) => Math.round((oz / OUNCES_PER[unit]) * 100) / 100;

/** A parcel's fields checked with the contract's own rules; the first problem per field. */
function problemsOf(d: Draft, unit: WeightUnit): Partial<Record<keyof Draft, string>> {
  const parsed = PackageInput.safeParse({
    weight: num(d.weight) === undefined ? Number.NaN : toOunces(d.weight, unit),
    length: num(d.length),
    width: num(d.width),
    height: num(d.height),
  });
  if (parsed.success) return {};
  const out: Partial<Record<keyof Draft, string>> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path[0] as keyof Draft;
    out[key] ??= key === 'weight' && num(d.weight) === undefined ? `Weigh the parcel (${unit}).` : issue.message;
  }
  return out;
}

/**
 * Buy a label: the parcels (weight in ounces, sides in inches), the label size, then every carrier service's
 * rate with the cheapest and fastest marked, then buy one. The Buy button is disabled while buying, and the
 * server buys once however often it is asked, so a double click is one label. The label opens to print.
 * With `lines` (the store's lines still to ship), each takes how many of its units go in this shipment; without,
 * the shipment carries everything left to ship.
 */
export function BuyLabel(props: {
  orderId: string;
  storeId?: string;
  lines?: ShipLine[];
  onDone?: (s: Shipment) => void;
}) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.shipments.settings.queryOptions());
  if (settings.isPending) return <Text size="sm">Loading the label settings…</Text>;
  // The settings are a convenience: without them, a label is still bought from the plain defaults.
  return <BuyLabelForm {...props} settings={settings.data ?? null} />;
}

function BuyLabelForm({
  orderId,
  storeId,
  lines,
  onDone,
  settings,
}: {
  orderId: string;
  storeId?: string;
  lines?: ShipLine[];
  onDone?: (s: Shipment) => void;
  settings: ShippingLabelSettings | null;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const unit: WeightUnit = settings?.weight_unit ?? 'oz';
  const preset = settings?.default_package;
  const [parcels, setParcels] = useState<Draft[]>([
    preset
      ? {
          weight: fromOunces(preset.weight, unit),
          length: preset.length ?? '',
          width: preset.width ?? '',
          height: preset.height ?? '',
        }
      : EMPTY,
  ]);
  const [size, setSize] = useState<LabelSize>(settings?.label_size ?? '4x6');
  const [tried, setTried] = useState(false);
  const [shipment, setShipment] = useState<Shipment | null>(null);
  const [rate, setRate] = useState<string | null>(null);
  const [quantities, setQuantities] = useState<Quantities>({});
  const reasonId = useId();
  const problems = parcels.map((p) => problemsOf(p, unit));
  const items = lines ? shipItems(lines, quantities) : undefined;
  const quantitiesValid = (lines ?? []).every((l) => !quantityProblem(l, quantityOf(l, quantities)));
  // Every line at 0: nothing would ship (the API reads no items as "all of it"), so rates are not asked for.
  const nothingToShip = quantitiesValid && items?.length === 0;
  const valid = problems.every((p) => Object.keys(p).length === 0) && quantitiesValid && !nothingToShip;

  const create = useMutation(
    trpc.shipments.create.mutationOptions({
      onSuccess: (s) => {
        setShipment(s);
        setRate(s.rates.find((r) => r.cheapest)?.key ?? null);
      },
    }),
  );
  const print = useMutation({
    mutationFn: (s: Shipment) => fetchLabel({ shipment_id: s.id }),
    onSuccess: (blob, s) => openPdf(blob, `label-${s.trackingCode ?? s.id}.pdf`),
    onError: (e) => notify.error(errorMessage(e)),
  });
  const buy = useMutation(
    trpc.shipments.buy.mutationOptions({
      onSuccess: async (s) => {
        notify.success(`Label bought: ${serviceName(s.carrier, s.service)}, tracking ${s.trackingCode}.`);
        await refreshShipments(queryClient, trpc);
        onDone?.(s);
        print.mutate(s);
      },
      onError: async () => {
        // The carrier's reason is shown below; the shipment (back to rated) can be bought again.
        await refreshShipments(queryClient, trpc);
      },
    }),
  );

  const getRates = () => {
    setTried(true);
    if (!valid) return;
    setShipment(null);
    create.mutate({
      id: orderId,
      store_id: storeId,
      label_size: size,
      ...(items ? { items } : {}),
      packages: parcels.map((p) => ({
        weight: toOunces(p.weight, unit),
        length: num(p.length),
        width: num(p.width),
        height: num(p.height),
      })),
    });
  };
  const edit = (i: number, patch: Partial<Draft>) => {
    setShipment(null);
    setParcels((list) => list.map((p, j) => (j === i ? { ...p, ...patch } : p)));
  };
  const busy = create.isPending || buy.isPending;

  // The button that opened the form is gone: the keyboard goes on from the form's first field.
  const form = useRef<HTMLDivElement>(null);
  useEffect(() => {
    form.current?.querySelector<HTMLElement>('input:not([disabled]), select:not([disabled])')?.focus();
  }, []);
  return (
    <Stack gap="md" data-testid="buy-label-form" ref={form}>
      {lines ? (
        <ShipQuantities
          lines={lines}
          quantities={quantities}
          onChange={(id, v) => {
            setShipment(null);
            setQuantities((q) => ({ ...q, [id]: v }));
          }}
          showErrors={tried}
          disabled={busy}
        />
      ) : null}
      {parcels.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: parcels have no identity but their place
        <Group key={i} align="flex-start" gap="sm" wrap="wrap">
          <NumberInput
            label={parcels.length > 1 ? `Parcel ${i + 1} weight (${unit})` : `Weight (${unit})`}
            data-testid={`package-weight-${i + 1}`}
            min={0}
            decimalScale={2}
            value={p.weight}
            onChange={(v) => edit(i, { weight: v })}
            error={tried ? problems[i]?.weight : undefined}
            w={150}
            required
            disabled={busy}
          />
          {(['length', 'width', 'height'] as const).map((side) => (
            <NumberInput
              key={side}
              label={`${side[0]?.toUpperCase()}${side.slice(1)} (in)`}
              min={0}
              decimalScale={1}
              value={p[side]}
              onChange={(v) => edit(i, { [side]: v })}
              error={tried ? problems[i]?.[side] : undefined}
              w={110}
              disabled={busy}
            />
          ))}
          {parcels.length > 1 ? (
            <Button
              variant="subtle"
              color="red"
              mt={24}
              disabled={busy}
              onClick={() => {
                setShipment(null);
                setParcels((list) => list.filter((_, j) => j !== i));
              }}
            >
              Remove
            </Button>
          ) : null}
        </Group>
      ))}
      <Group gap="sm">
        <Button
          variant="default"
          disabled={busy || parcels.length >= SHIPMENT_MAX_PACKAGES}
          onClick={() => {
            setShipment(null);
            setParcels((list) => [...list, EMPTY]);
          }}
        >
          Add parcel
        </Button>
        <Stack gap={2}>
          <Text size="sm" fw={500} id="label-size-label">
            Label size
          </Text>
          <SegmentedControl
            aria-labelledby="label-size-label"
            value={size}
            onChange={(v) => {
              setShipment(null);
              setSize(v as LabelSize);
            }}
            data={[
              { value: '4x6', label: '4×6 in' },
              { value: 'letter', label: 'Letter' },
            ]}
            disabled={busy}
          />
        </Stack>
        <Button
          onClick={getRates}
          loading={create.isPending}
          disabled={buy.isPending || nothingToShip}
          aria-describedby={nothingToShip ? reasonId : undefined}
          data-testid="get-rates"
          mt="auto"
        >
          Get rates
        </Button>
      </Group>
      {nothingToShip ? (
        <Text size="sm" c="red" id={reasonId} role="status">
          {NOTHING_TO_SHIP}
        </Text>
      ) : null}
      {create.isError ? (
        <Alert color="red" variant="light" title="No rates">
          {errorMessage(create.error)}
        </Alert>
      ) : null}
      {shipment ? (
        <>
          <RatesTable rates={shipment.rates} value={rate} onChange={setRate} disabled={buy.isPending} />
          {buy.isError ? (
            <Alert color="red" variant="light" title="The label was not bought" data-testid="buy-error">
              {errorMessage(buy.error)}
            </Alert>
          ) : null}
          <Group>
            <Button
              data-testid="buy-label-confirm"
              disabled={!rate || buy.isPending}
              loading={buy.isPending}
              onClick={() => rate && buy.mutate({ id: orderId, shipment_id: shipment.id, rate })}
            >
              Buy label
            </Button>
          </Group>
        </>
      ) : null}
    </Stack>
  );
}
