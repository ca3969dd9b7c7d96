import { ActionIcon, Alert, Button, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { CHANNEL_LABELS, type ShippingSettings } from '@switchyard/contracts';
import { createFileRoute } from '@tanstack/react-router';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { SettingsForm } from '../-components/settings-form.tsx';
import { storeOptions, useLoadedChannel, useSquareStores } from '../-components/use-channel.ts';

export const Route = createFileRoute('/_app/channels/$id/shipping-settings')({
  component: ShippingSettingsPage,
});

type MethodRow = ShippingSettings['methodMap'][number];
/** Cells line up at the top, so a row with an error message keeps its inputs level. */
const TOP = { verticalAlign: 'top' } as const;
const BLANK_ROW: MethodRow = { channelMethod: '', carrier: '', service: '' };

function ShippingSettingsPage() {
  const channel = useLoadedChannel(Route.useParams().id);
  const stores = useSquareStores();
  const label = CHANNEL_LABELS[channel.type];
  return (
    <SettingsForm channel={channel} section="shipping" label="Shipping settings">
      {(form) => {
        const rows = form.values.methodMap;
        const setRow = (index: number, change: Partial<MethodRow>) =>
          form.set(
            'methodMap',
            rows.map((row, i) => (i === index ? { ...row, ...change } : row)),
          );
        return (
          <>
            <SectionCard
              title="Shipping methods"
              description={`Each shipping method a customer picks at ${label}, and the carrier service Switchyard buys its label from.`}
              actions={
                <Button
                  size="xs"
                  variant="light"
                  disabled={form.disabled || rows.length >= 100}
                  onClick={() => form.set('methodMap', [...rows, { ...BLANK_ROW }])}
                >
                  Add shipping method
                </Button>
              }
            >
              {rows.length === 0 ? (
                <Text c="dimmed" size="sm">
                  No shipping methods are mapped. Orders keep the method the customer chose, and labels are bought by
                  hand.
                </Text>
              ) : (
                <Table.ScrollContainer minWidth={640}>
                  <Table aria-label="Shipping method mapping" verticalSpacing="xs">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th scope="col">{label} method</Table.Th>
                        <Table.Th scope="col">Carrier</Table.Th>
                        <Table.Th scope="col">Service</Table.Th>
                        <Table.Th scope="col" w={48}>
                          <Text span size="sm" style={{ visibility: 'hidden' }}>
                            Remove
                          </Text>
                        </Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {rows.map((row, index) => {
                        const n = index + 1;
                        return (
                          // Rows have no id of their own; their position is their identity while editing.
                          // biome-ignore lint/suspicious/noArrayIndexKey: see above
                          <Table.Tr key={index}>
                            <Table.Td style={TOP}>
                              <TextInput
                                aria-label={`Method ${n}`}
                                placeholder="e.g. Express"
                                value={row.channelMethod}
                                disabled={form.disabled}
                                onChange={(event) => setRow(index, { channelMethod: event.currentTarget.value })}
                                error={form.errorAt(`methodMap.${index}.channelMethod`)}
                              />
                            </Table.Td>
                            <Table.Td style={TOP}>
                              <TextInput
                                aria-label={`Carrier ${n}`}
                                placeholder="e.g. UPS"
                                value={row.carrier}
                                disabled={form.disabled}
                                onChange={(event) => setRow(index, { carrier: event.currentTarget.value })}
                                error={form.errorAt(`methodMap.${index}.carrier`)}
                              />
                            </Table.Td>
                            <Table.Td style={TOP}>
                              <TextInput
                                aria-label={`Service ${n}`}
                                placeholder="e.g. Next Day Air"
                                value={row.service}
                                disabled={form.disabled}
                                onChange={(event) => setRow(index, { service: event.currentTarget.value })}
                                error={form.errorAt(`methodMap.${index}.service`)}
                              />
                            </Table.Td>
                            <Table.Td style={TOP} pt={14}>
                              <ActionIcon
                                variant="subtle"
                                color="red"
                                aria-label={`Remove method ${n}`}
                                disabled={form.disabled}
                                onClick={() =>
                                  form.set(
                                    'methodMap',
                                    rows.filter((_, i) => i !== index),
                                  )
                                }
                              >
                                ✕
                              </ActionIcon>
                            </Table.Td>
                          </Table.Tr>
                        );
                      })}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
            </SectionCard>
            <SectionCard
              title="Ships from"
              description="The store that ships this channel's orders when routing has no better choice."
            >
              {stores.isError ? (
                <Alert color="yellow" variant="light" title="Could not read your Square stores" role="alert">
                  {errorMessage(stores.error)}
                </Alert>
              ) : null}
              <Stack gap={4}>
                <Select
                  label="Default store"
                  placeholder={stores.isPending ? 'Loading stores…' : 'Let routing decide'}
                  data={storeOptions(stores.data?.stores ?? [], [form.values.defaultShipFromStoreId])}
                  value={form.values.defaultShipFromStoreId}
                  clearable
                  disabled={form.disabled || stores.isPending}
                  clearButtonProps={{ 'aria-label': 'Let routing decide', 'aria-hidden': false, tabIndex: 0 }}
                  onChange={(value) => form.set('defaultShipFromStoreId', value)}
                  maw={360}
                />
                {stores.data?.stores.length === 0 ? (
                  <Text size="xs" c="dimmed">
                    Connect Square POS to choose one of your stores.
                  </Text>
                ) : null}
              </Stack>
            </SectionCard>
          </>
        );
      }}
    </SettingsForm>
  );
}
