import { Fieldset, NumberInput, SimpleGrid, Text } from '@mantine/core';
import type { ShipmentCreateInput } from '@switchyard/contracts';

/** A line the shipment may carry units of: its allocation at the store and the units still to ship. */
export interface ShipLine {
  allocationId: string;
  /** The SKU, else the title: how the line is named in the form. */
  label: string;
  title: string;
  toShip: number;
}

/** Units typed per allocation; a line not typed in ships all that is left. */
export type Quantities = Record<string, number | string>;

export const quantityOf = (line: ShipLine, quantities: Quantities) => quantities[line.allocationId] ?? line.toShip;

/** What is wrong with a line's units, said plainly (0 is fine: the line stays out of this shipment). */
export function quantityProblem(line: ShipLine, value: number | string): string | undefined {
  if (value === '' || Number.isNaN(Number(value))) return `Enter the units of ${line.label} to ship (0 leaves it out).`;
  const n = Number(value);
  if (!Number.isInteger(n)) return 'A quantity is a whole number.';
  if (n < 0) return 'A quantity is 0 or more.';
  if (n > line.toShip) return `Only ${line.toShip} ${line.toShip === 1 ? 'unit is' : 'units are'} left to ship.`;
  return undefined;
}

/** The shipment's items: each line with units chosen, with them; a line at 0 is left out. */
export function shipItems(lines: ShipLine[], quantities: Quantities): NonNullable<ShipmentCreateInput['items']> {
  return lines
    .map((l) => ({ allocation_id: l.allocationId, quantity: Number(quantityOf(l, quantities)) }))
    .filter((i) => i.quantity > 0);
}

export const NOTHING_TO_SHIP = 'Choose at least one unit to ship: every line is at 0.';

/** Per line, how many of the units still to ship go in this shipment (0 to what is left, default all of it). */
export function ShipQuantities({
  lines,
  quantities,
  onChange,
  showErrors,
  disabled,
}: {
  lines: ShipLine[];
  quantities: Quantities;
  onChange: (allocationId: string, value: number | string) => void;
  showErrors: boolean;
  disabled?: boolean;
}) {
  return (
    <Fieldset legend="Units in this shipment" variant="unstyled" data-testid="ship-quantities">
      <Text size="xs" c="dimmed" mb="xs">
        What is left of a line ships later; a line at 0 stays out of this shipment.
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {lines.map((line) => {
          const value = quantityOf(line, quantities);
          const problem = quantityProblem(line, value);
          return (
            <NumberInput
              key={line.allocationId}
              label={`Units of ${line.label} to ship`}
              description={`${line.title} · ${line.toShip} left to ship`}
              min={0}
              max={line.toShip}
              allowDecimal={false}
              allowNegative={false}
              clampBehavior="none"
              value={value}
              onChange={(v) => onChange(line.allocationId, v)}
              error={problem && (showErrors || value !== '') ? problem : undefined}
              disabled={disabled}
              w={{ base: '100%', sm: 260 }}
            />
          );
        })}
      </SimpleGrid>
    </Fieldset>
  );
}
