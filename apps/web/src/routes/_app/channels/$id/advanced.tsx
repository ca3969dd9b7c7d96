import { NumberInput, Stack, Switch } from '@mantine/core';
import { AdvancedSettings, CHANNEL_LABELS } from '@switchyard/contracts';
import { createFileRoute } from '@tanstack/react-router';
import { SectionCard } from '../../../../components/section-card.tsx';
import { SettingsForm } from '../-components/settings-form.tsx';
import { useLoadedChannel } from '../-components/use-channel.ts';

export const Route = createFileRoute('/_app/channels/$id/advanced')({
  component: AdvancedPage,
});

const reconcile = AdvancedSettings.shape.reconcileEveryMinutes;
const safety = AdvancedSettings.shape.safetyStock;
const asNumber = (value: string | number) => (typeof value === 'number' ? value : undefined) as number;

function AdvancedPage() {
  const channel = useLoadedChannel(Route.useParams().id);
  const label = CHANNEL_LABELS[channel.type];
  return (
    <SettingsForm channel={channel} section="advanced" label="Advanced settings">
      {(form) => (
        <SectionCard title="Stock sync" description="How Switchyard keeps this channel's quantities right.">
          <Stack gap="md">
            <Switch
              label="Compare before setting"
              description={
                channel.type === 'shopify'
                  ? 'Send each quantity with the one Switchyard last saw, so a sale made meanwhile is never overwritten.'
                  : `${label} has no compare-and-set; quantities are set after a fresh read instead.`
              }
              checked={form.values.compareAndSet}
              disabled={form.disabled}
              onChange={(event) => form.set('compareAndSet', event.currentTarget.checked)}
            />
            <NumberInput
              label="Reconcile every (minutes)"
              description={`How often the channel is compared with Switchyard to catch what webhooks missed (${reconcile.minValue}–${reconcile.maxValue}).`}
              min={reconcile.minValue ?? undefined}
              max={reconcile.maxValue ?? undefined}
              allowDecimal={false}
              allowNegative={false}
              value={form.values.reconcileEveryMinutes ?? ''}
              disabled={form.disabled}
              onChange={(value) => form.set('reconcileEveryMinutes', asNumber(value))}
              error={form.errorAt('reconcileEveryMinutes')}
              maw={260}
            />
            <NumberInput
              label="Safety stock (units)"
              description="Held back from this channel on every product at every location, before stock buffers."
              min={safety.minValue ?? undefined}
              max={safety.maxValue ?? undefined}
              allowDecimal={false}
              allowNegative={false}
              value={form.values.safetyStock ?? ''}
              disabled={form.disabled}
              onChange={(value) => form.set('safetyStock', asNumber(value))}
              error={form.errorAt('safetyStock')}
              maw={260}
            />
            <Switch
              label="Retry failed items on their own"
              description="Items that failed to sync are tried again with growing pauses before they are reported."
              checked={form.values.autoRetryFailed}
              disabled={form.disabled}
              onChange={(event) => form.set('autoRetryFailed', event.currentTarget.checked)}
            />
          </Stack>
        </SectionCard>
      )}
    </SettingsForm>
  );
}
