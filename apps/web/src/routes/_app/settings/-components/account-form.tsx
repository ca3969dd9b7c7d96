import { Alert, Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { type AccountDetails, UpdateAccountInput } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { z } from 'zod';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';

const blankToNull = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? null : value);

/** The contracts' rules, with every field sent; a blank country clears it like the other optional fields. */
const AccountForm = UpdateAccountInput.required().extend({
  country: z.preprocess(blankToNull, UpdateAccountInput.shape.country.unwrap()),
});

function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return known.includes(current) ? known : [current, ...known];
}

/** Business details (account.update); the catalog data and the header follow. */
export function AccountDetailsForm({ account }: { account: AccountDetails }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(AccountForm, {
    business: account.business,
    phone: account.phone ?? '',
    addressLine1: account.addressLine1 ?? '',
    city: account.city ?? '',
    postcode: account.postcode ?? '',
    country: account.country ?? '',
    timezone: account.timezone,
    currency: account.currency,
  });
  const zones = useMemo(() => timeZones(account.timezone), [account.timezone]);
  const update = useMutation(
    trpc.account.update.mutationOptions({
      onSuccess: async () => {
        notify.success('Your business details were saved.');
        await Promise.all([
          queryClient.invalidateQueries(trpc.account.catalogs.pathFilter()),
          queryClient.invalidateQueries(trpc.hydration.getBasicData.pathFilter()),
          queryClient.invalidateQueries(trpc.audit.list.pathFilter()),
        ]);
      },
    }),
  );

  return (
    <SectionCard title="Business details" description="Shown on documents and used for times and amounts.">
      <form noValidate aria-label="Business details" onSubmit={form.onSubmit((data) => update.mutate(data))}>
        <Stack gap="md">
          {update.isError ? (
            <Alert color="red" variant="light" title="Could not save your business details" role="alert">
              {errorMessage(update.error)}
            </Alert>
          ) : null}
          <TextInput label="Business name" autoComplete="organization" required {...form.inputProps('business')} />
          <TextInput label="Phone" type="tel" autoComplete="tel" {...form.inputProps('phone')} />
          <TextInput label="Address" autoComplete="address-line1" {...form.inputProps('addressLine1')} />
          <Group grow align="flex-start" wrap="wrap">
            <TextInput label="City" autoComplete="address-level2" {...form.inputProps('city')} />
            <TextInput label="Postcode" autoComplete="postal-code" {...form.inputProps('postcode')} />
            <TextInput
              label="Country"
              description="Two-letter code, e.g. US"
              autoComplete="country"
              maxLength={2}
              {...form.inputProps('country')}
            />
          </Group>
          <Group grow align="flex-start" wrap="wrap">
            <Select
              label="Time zone"
              data={zones}
              searchable
              // Hundreds of zones: typing narrows them; rendering them all at once is slow.
              limit={50}
              allowDeselect={false}
              nothingFoundMessage="No such time zone"
              value={String(form.values.timezone ?? '')}
              onChange={(value) => form.setValue('timezone', value ?? '')}
              error={form.errors.timezone}
            />
            <TextInput
              label="Currency"
              description="Three-letter code, e.g. USD"
              maxLength={3}
              required
              {...form.inputProps('currency')}
            />
          </Group>
          <Group>
            <Button type="submit" loading={update.isPending}>
              Save business details
            </Button>
          </Group>
        </Stack>
      </form>
    </SectionCard>
  );
}
