import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Modal,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { type Plan, PlanInput } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, notFound } from '@tanstack/react-router';
import { useState } from 'react';
import { z } from 'zod';
import { QueryError } from '../../../components/query-error.tsx';
import { getAuthState, isSuperAdmin } from '../../../lib/auth.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { useZodForm } from '../../../lib/use-zod-form.ts';
import {
  currencyDigits,
  formatLimit,
  formatMoney,
  fromMinorUnits,
  LIMIT_KEYS,
  toMinorUnits,
} from '../../subscription/-components/money.ts';

// Super admins only; for anyone else (superusers included) the page does not exist.
export const Route = createFileRoute('/_app/admin/plans')({
  beforeLoad: () => {
    if (!isSuperAdmin(getAuthState())) throw notFound();
  },
  component: PlansAdminPage,
});

const AMOUNT = /^\d{1,9}(?:[.,]\d+)?$/;
const amountText = z.string().trim().min(1, '* Required').regex(AMOUNT, 'An amount such as 29 or 29.00');
const limitText = z
  .string()
  .trim()
  .regex(/^\d{0,9}$/, 'A whole number, or empty for unlimited');

/**
 * The plan as typed: prices in the currency's major units ("29.00"), limits empty for unlimited, one feature
 * a line. Each field is checked with the contracts' PlanInput rules; the result is a PlanInput.
 */
const PlanForm = z
  .object({
    id: z.string().optional(),
    code: PlanInput.shape.code,
    name: PlanInput.shape.name,
    description: PlanInput.shape.description,
    currency: PlanInput.shape.currency,
    monthlyPrice: amountText,
    yearlyPrice: amountText,
    channels: limitText,
    locations: limitText,
    ordersPerMonth: limitText,
    users: limitText,
    features: z
      .string()
      .transform((text) =>
        text
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(z.string().max(120, 'Each feature may have at most 120 characters')).max(20, 'At most 20 features'),
      ),
    public: z.boolean(),
    active: z.boolean(),
    sortOrder: z
      .string()
      .trim()
      .regex(/^-?\d{1,6}$/, 'A whole number'),
  })
  .superRefine((values, ctx) => {
    for (const field of ['monthlyPrice', 'yearlyPrice'] as const) {
      if (toMinorUnits(values[field], values.currency) === undefined) {
        const digits = currencyDigits(values.currency);
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message:
            digits === 0
              ? `${values.currency.toUpperCase()} amounts have no decimals`
              : `At most ${digits} decimals in ${values.currency.toUpperCase()}`,
        });
      }
    }
  })
  .transform(
    (values): PlanInput => ({
      ...(values.id ? { id: values.id } : {}),
      code: values.code,
      name: values.name,
      description: values.description,
      currency: values.currency,
      monthlyPrice: toMinorUnits(values.monthlyPrice, values.currency) ?? 0,
      yearlyPrice: toMinorUnits(values.yearlyPrice, values.currency) ?? 0,
      limits: {
        channels: limit(values.channels),
        locations: limit(values.locations),
        ordersPerMonth: limit(values.ordersPerMonth),
        users: limit(values.users),
      },
      features: values.features,
      public: values.public,
      active: values.active,
      sortOrder: Number(values.sortOrder),
    }),
  );

function limit(text: string): number | null {
  return text === '' ? null : Number(text);
}

type PlanFormValues = z.input<typeof PlanForm>;

function formValues(plan: Plan | undefined, nextSortOrder: number): PlanFormValues {
  if (!plan) {
    return {
      code: '',
      name: '',
      description: '',
      currency: 'usd',
      monthlyPrice: '',
      yearlyPrice: '',
      channels: '',
      locations: '',
      ordersPerMonth: '',
      users: '',
      features: '',
      public: true,
      active: true,
      sortOrder: String(nextSortOrder),
    };
  }
  const text = (value: number | null) => (value === null ? '' : String(value));
  return {
    id: plan.id,
    code: plan.code,
    name: plan.name,
    description: plan.description,
    currency: plan.currency,
    monthlyPrice: fromMinorUnits(plan.monthlyPrice, plan.currency),
    yearlyPrice: fromMinorUnits(plan.yearlyPrice, plan.currency),
    channels: text(plan.limits.channels),
    locations: text(plan.limits.locations),
    ordersPerMonth: text(plan.limits.ordersPerMonth),
    users: text(plan.limits.users),
    features: plan.features.join('\n'),
    public: plan.public,
    active: plan.active,
    sortOrder: String(plan.sortOrder),
  };
}

/** Which plan the form edits: a plan, a new one, or none (closed). */
type Editing = { plan?: Plan } | null;

function PlansAdminPage() {
  const trpc = useTRPC();
  const plans = useQuery(trpc.admin.plans.list.queryOptions());
  const [editing, setEditing] = useState<Editing>(null);
  const nextSortOrder = Math.max(0, ...(plans.data ?? []).map((plan) => plan.sortOrder + 10));

  return (
    <Stack gap="lg" maw={1100}>
      <Group justify="space-between">
        <Title order={1}>Plans</Title>
        <Button onClick={() => setEditing({})}>New plan</Button>
      </Group>
      <Text c="dimmed">
        What merchants can subscribe to. Prices apply to new subscriptions and plan changes; a plan that is not public
        is shown only at /subscription/plans?all=true, and one that is not active can no longer be chosen.
      </Text>
      {plans.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading the plans">
          {[0, 1, 2].map((row) => (
            <Skeleton key={row} height={28} />
          ))}
        </Stack>
      ) : plans.isError ? (
        <QueryError
          title="Could not load the plans"
          error={plans.error}
          onRetry={plans.refetch}
          retrying={plans.isFetching}
        />
      ) : plans.data.length === 0 ? (
        <Text c="dimmed">There are no plans yet. Create the first one.</Text>
      ) : (
        <Table.ScrollContainer minWidth={860}>
          <Table striped highlightOnHover aria-label="Plans">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Plan</Table.Th>
                <Table.Th scope="col">Monthly</Table.Th>
                <Table.Th scope="col">Yearly</Table.Th>
                <Table.Th scope="col">Limits</Table.Th>
                <Table.Th scope="col">Shown</Table.Th>
                <Table.Th scope="col">Order</Table.Th>
                <Table.Th scope="col">
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {plans.data.map((plan) => (
                <Table.Tr key={plan.id}>
                  <Table.Td>
                    <Text fw={500}>{plan.name}</Text>
                    <Code>{plan.code}</Code>
                  </Table.Td>
                  <Table.Td>{formatMoney(plan.monthlyPrice, plan.currency)}</Table.Td>
                  <Table.Td>{formatMoney(plan.yearlyPrice, plan.currency)}</Table.Td>
                  <Table.Td>
                    <Text size="xs">{LIMIT_KEYS.map((key) => formatLimit(key, plan.limits[key])).join(' · ')}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {plan.active ? null : (
                        <Badge color="gray" variant="light">
                          Retired
                        </Badge>
                      )}
                      <Badge color={plan.public ? 'teal' : 'yellow'} variant="light">
                        {plan.public ? 'Public' : 'Not listed'}
                      </Badge>
                    </Group>
                  </Table.Td>
                  <Table.Td>{plan.sortOrder}</Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => setEditing({ plan })}
                      aria-label={`Edit ${plan.name}`}
                    >
                      Edit
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.plan ? `Edit ${editing.plan.name}` : 'New plan'}
        size="lg"
      >
        {editing ? (
          <PlanFields
            key={editing.plan?.id ?? 'new'}
            initial={formValues(editing.plan, nextSortOrder)}
            onDone={() => setEditing(null)}
          />
        ) : null}
      </Modal>
    </Stack>
  );
}

function PlanFields({ initial, onDone }: { initial: PlanFormValues; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(PlanForm, initial);
  const upsert = useMutation(
    trpc.admin.plans.upsert.mutationOptions({
      onSuccess: (plan) => {
        notify.success(`Plan “${plan.name}” saved.`);
        void queryClient.invalidateQueries(trpc.admin.plans.pathFilter());
        void queryClient.invalidateQueries(trpc.plans.pathFilter());
        onDone();
      },
    }),
  );
  const currency = String(form.values.currency || 'usd').toUpperCase();

  return (
    <form
      noValidate
      aria-label={initial.id ? 'Edit the plan' : 'Create a plan'}
      onSubmit={form.onSubmit((input) => upsert.mutate(input))}
    >
      <Stack gap="md">
        {upsert.isError ? (
          <Alert color="red" variant="light" title="Could not save the plan" role="alert">
            {errorMessage(upsert.error)}
          </Alert>
        ) : null}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Name" required {...form.inputProps('name')} />
          <TextInput
            label="Code"
            description="Stable; prices at the provider are found by it"
            required
            readOnly={Boolean(initial.id)}
            {...form.inputProps('code')}
          />
        </SimpleGrid>
        <Textarea
          label="Description"
          rows={2}
          {...form.inputProps('description')}
          onChange={(event) => form.setValue('description', event.currentTarget.value)}
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <TextInput label="Currency" description="e.g. usd" required maxLength={3} {...form.inputProps('currency')} />
          <TextInput
            label={`Monthly price (${currency})`}
            inputMode="decimal"
            required
            {...form.inputProps('monthlyPrice')}
          />
          <TextInput
            label={`Yearly price (${currency})`}
            inputMode="decimal"
            required
            {...form.inputProps('yearlyPrice')}
          />
        </SimpleGrid>
        <Text size="sm" fw={500}>
          Limits{' '}
          <Text span size="xs" c="dimmed" fw={400}>
            (empty for unlimited)
          </Text>
        </Text>
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <TextInput label="Sales channels" inputMode="numeric" {...form.inputProps('channels')} />
          <TextInput label="Locations" inputMode="numeric" {...form.inputProps('locations')} />
          <TextInput label="Orders a month" inputMode="numeric" {...form.inputProps('ordersPerMonth')} />
          <TextInput label="Users" inputMode="numeric" {...form.inputProps('users')} />
        </SimpleGrid>
        <Textarea
          label="Features"
          description="One a line, at most 20"
          rows={4}
          {...form.inputProps('features')}
          onChange={(event) => form.setValue('features', event.currentTarget.value)}
        />
        <Group gap="xl" align="flex-end">
          <Checkbox label="Public" description="Listed on the plans page" {...form.checkboxProps('public')} />
          <Checkbox label="Active" description="Can be chosen" {...form.checkboxProps('active')} />
          <TextInput label="Order" inputMode="numeric" w={100} {...form.inputProps('sortOrder')} />
        </Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={upsert.isPending}>
            Save plan
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
