import { Alert, Button, Group, NumberInput, Stack } from '@mantine/core';
import {
  type AccountCatalogs,
  DEFAULT_LOW_STOCK_THRESHOLD,
  LOW_STOCK_SETTING,
  StockSettingsInput,
} from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';

/** The field holds text while typed; a blank or a non-number gets the threshold's own message. */
const StockForm = z.object({
  lowStockThreshold: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value === '' ? undefined : value),
    StockSettingsInput.shape.lowStockThreshold,
  ),
});

/** The saved threshold, from the account settings the account page already has. */
export function savedLowStockThreshold(settings: AccountCatalogs['accountSettings']): number {
  const value = settings.find((s) => s.key === LOW_STOCK_SETTING)?.value;
  return typeof value === 'number' && Number.isInteger(value) ? value : DEFAULT_LOW_STOCK_THRESHOLD;
}

/** The low-stock threshold: the dashboard's stock health and the low-stock notifications use it. */
export function StockSettingsForm({ lowStockThreshold }: { lowStockThreshold: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(StockForm, { lowStockThreshold: String(lowStockThreshold) });
  const save = useMutation(
    trpc.account.updateStockSettings.mutationOptions({
      onSuccess: async () => {
        notify.success('Your stock settings were saved.');
        await Promise.all([
          queryClient.invalidateQueries(trpc.account.catalogs.pathFilter()),
          queryClient.invalidateQueries(trpc.metrics.pathFilter()),
          queryClient.invalidateQueries(trpc.notifications.settings.pathFilter()),
        ]);
      },
    }),
  );
  return (
    <SectionCard title="Stock" description="What counts as low stock on the dashboard and in notifications.">
      <form
        noValidate
        aria-label="Stock settings"
        onSubmit={form.onSubmit((data) => save.mutate({ lowStockThreshold: data.lowStockThreshold }))}
      >
        <Stack gap="md">
          {save.isError ? (
            <Alert color="red" variant="light" title="Could not save your stock settings" role="alert">
              {errorMessage(save.error)}
            </Alert>
          ) : null}
          <NumberInput
            label="Low-stock threshold"
            description="A SKU with this many or fewer available to sell (and more than 0) is low on stock."
            min={0}
            max={100_000}
            // Out of range is said by the message, not corrected silently.
            clampBehavior="none"
            allowDecimal={false}
            w={320}
            name="lowStockThreshold"
            value={String(form.values.lowStockThreshold ?? '')}
            onChange={(value) => form.setValue('lowStockThreshold', String(value))}
            error={form.errors.lowStockThreshold}
          />
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save stock settings
            </Button>
          </Group>
        </Stack>
      </form>
    </SectionCard>
  );
}
