import { Badge, Group, Radio, Table, Text } from '@mantine/core';
import type { ShipmentRate } from '@switchyard/contracts';
import { formatMoney } from '../../routes/subscription/-components/money.ts';
import { serviceName } from './shipment-api.ts';

/** Every carrier service's rate for the parcels, cheapest first; one is chosen with the radio (keyboard: arrows). */
export function RatesTable({
  rates,
  value,
  onChange,
  disabled,
}: {
  rates: ShipmentRate[];
  value: string | null;
  onChange: (key: string) => void;
  disabled?: boolean;
}) {
  return (
    <Radio.Group value={value} onChange={onChange} name="rate" label="Rates" description="Choose a service">
      <Table.ScrollContainer minWidth={480}>
        <Table striped highlightOnHover data-testid="rates-table" mt="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40} />
              <Table.Th>Service</Table.Th>
              <Table.Th>Delivery</Table.Th>
              <Table.Th ta="right">Price</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rates.map((r) => (
              <Table.Tr key={r.key} data-testid={`rate-${r.key}`} onClick={() => !disabled && onChange(r.key)}>
                <Table.Td>
                  <Radio value={r.key} aria-label={serviceName(r.carrier, r.service)} disabled={disabled} />
                </Table.Td>
                <Table.Td>
                  <Group gap="xs">
                    <Text size="sm">{serviceName(r.carrier, r.service)}</Text>
                    {r.cheapest ? (
                      <Badge color="teal" variant="light" size="sm">
                        Cheapest
                      </Badge>
                    ) : null}
                    {r.fastest ? (
                      <Badge color="blue" variant="light" size="sm">
                        Fastest
                      </Badge>
                    ) : null}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">
                    {r.deliveryDays === null ? '—' : `${r.deliveryDays} ${r.deliveryDays === 1 ? 'day' : 'days'}`}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  <Text size="sm" fw={500}>
                    {formatMoney(r.amount, r.currency)}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Radio.Group>
  );
}
