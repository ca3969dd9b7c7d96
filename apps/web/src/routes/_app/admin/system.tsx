import {
  Alert,
  Button,
  Checkbox,
  Code,
  Group,
  Radio,
  Stack,
  Switch,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { type AdminUser, SetModuleInput, SetSuperuserInput, SetSystemSettingInput } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, notFound } from '@tanstack/react-router';
import { useState } from 'react';
import { z } from 'zod';
import { QueryError } from '../../../components/query-error.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { getAuthState, isSuperAdmin } from '../../../lib/auth.ts';
import { basicDataOptions } from '../../../lib/basic-data.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { useZodForm } from '../../../lib/use-zod-form.ts';

// Super admins only; for anyone else (superusers included) the page does not exist.
export const Route = createFileRoute('/_app/admin/system')({
  beforeLoad: () => {
    if (!isSuperAdmin(getAuthState())) throw notFound();
  },
  component: SystemPage,
});

export const INVALID_JSON = 'Enter a valid JSON value, e.g. true, 42, "text" or {"a": 1}';

/** The value is typed as JSON text and checked with the contracts' rule once parsed. */
const SystemSettingForm = SetSystemSettingInput.extend({
  value: z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as z.infer<typeof SetSystemSettingInput>['value'];
    } catch {
      ctx.addIssue({ code: 'custom', message: INVALID_JSON });
      return z.NEVER;
    }
  }),
});

function useInvalidateBasicData() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries(trpc.hydration.getBasicData.pathFilter());
}

function SystemPage() {
  const trpc = useTRPC();
  const basic = useQuery(basicDataOptions(trpc));
  return (
    <Stack gap="lg" maw={960}>
      <Title order={1}>System</Title>
      <Text c="dimmed">Changes here apply to every account and are recorded in your own account's activity log.</Text>
      {basic.isError ? (
        <QueryError
          title="Could not load the current settings"
          error={basic.error}
          onRetry={basic.refetch}
          retrying={basic.isFetching}
        />
      ) : null}
      <SystemSettingsSection items={basic.data?.systemSettings} />
      <ModulesSection modules={basic.data?.modules} />
      <SuperuserSection />
    </Stack>
  );
}

function SystemSettingsSection({ items }: { items: { key: string; value: unknown }[] | undefined }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateBasicData();
  const [formKey, setFormKey] = useState(0);
  const set = useMutation(
    trpc.admin.systemSettings.set.mutationOptions({
      onSuccess: (row) => {
        notify.success(`System setting “${row.key}” saved.`);
        setFormKey((key) => key + 1);
        void invalidate();
      },
    }),
  );
  return (
    <SectionCard title="System settings" description="Settings every account reads, by key, with a JSON value.">
      {items && items.length > 0 ? (
        <Table.ScrollContainer minWidth={480}>
          <Table aria-label="System settings">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Key</Table.Th>
                <Table.Th scope="col">Value</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((item) => (
                <Table.Tr key={item.key}>
                  <Table.Td>
                    <Code>{item.key}</Code>
                  </Table.Td>
                  <Table.Td>
                    <Code>{JSON.stringify(item.value)}</Code>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : items ? (
        <Text size="sm" c="dimmed">
          No system settings yet.
        </Text>
      ) : null}
      {set.isError ? (
        <Alert color="red" variant="light" title="Could not save the setting" role="alert">
          {errorMessage(set.error)}
        </Alert>
      ) : null}
      <SystemSettingFields key={formKey} pending={set.isPending} onSubmit={(input) => set.mutate(input)} />
    </SectionCard>
  );
}

function SystemSettingFields({
  pending,
  onSubmit,
}: {
  pending: boolean;
  onSubmit: (input: z.output<typeof SystemSettingForm>) => void;
}) {
  const form = useZodForm(SystemSettingForm, { key: '', value: '' });
  return (
    <form noValidate aria-label="Set a system setting" onSubmit={form.onSubmit(onSubmit)}>
      <Stack gap="md">
        <TextInput label="Key" required {...form.inputProps('key')} />
        <Textarea
          label="Value (JSON)"
          rows={3}
          required
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          {...form.inputProps('value')}
          onChange={(event) => form.setValue('value', event.currentTarget.value)}
        />
        <Group>
          <Button type="submit" loading={pending}>
            Save setting
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

type Module = z.infer<typeof SetModuleInput>;

function ModulesSection({ modules }: { modules: Module[] | undefined }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateBasicData();
  const [formKey, setFormKey] = useState(0);
  const set = useMutation(
    trpc.admin.modules.set.mutationOptions({
      onSuccess: (module) => {
        notify.success(`Module “${module.name}” is ${module.enabled ? 'on' : 'off'}.`);
        setFormKey((key) => key + 1);
        void invalidate();
      },
    }),
  );
  return (
    <SectionCard title="Modules" description="Parts of the product that can be switched on or off for everyone.">
      {modules && modules.length > 0 ? (
        <Stack gap="xs">
          {modules.map((module) => (
            <Switch
              key={module.dev_name}
              label={module.name}
              description={module.dev_name}
              checked={module.enabled}
              disabled={set.isPending}
              onChange={(event) => set.mutate({ ...module, enabled: event.currentTarget.checked })}
            />
          ))}
        </Stack>
      ) : modules ? (
        <Text size="sm" c="dimmed">
          No modules yet.
        </Text>
      ) : null}
      {set.isError ? (
        <Alert color="red" variant="light" title="Could not save the module" role="alert">
          {errorMessage(set.error)}
        </Alert>
      ) : null}
      <ModuleFields key={formKey} pending={set.isPending} onSubmit={(input) => set.mutate(input)} />
    </SectionCard>
  );
}

function ModuleFields({ pending, onSubmit }: { pending: boolean; onSubmit: (input: Module) => void }) {
  const form = useZodForm(SetModuleInput, { dev_name: '', name: '', enabled: true });
  return (
    <form noValidate aria-label="Add or change a module" onSubmit={form.onSubmit(onSubmit)}>
      <Stack gap="md">
        <Group grow align="flex-start" wrap="wrap">
          <TextInput label="Dev name" description="e.g. order_routing" required {...form.inputProps('dev_name')} />
          <TextInput label="Name" required {...form.inputProps('name')} />
        </Group>
        <Checkbox label="Enabled" {...form.checkboxProps('enabled')} />
        <Group>
          <Button type="submit" loading={pending}>
            Save module
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const LEVELS = [
  { value: 'user', label: 'User' },
  { value: 'superuser', label: 'Superuser' },
];

function SuperuserSection() {
  const trpc = useTRPC();
  const [result, setResult] = useState<AdminUser>();
  const form = useZodForm(SetSuperuserInput, { userId: '', authorizationLevel: 'user', superUserRole: null });
  const set = useMutation(
    trpc.admin.users.setSuperuser.mutationOptions({ onMutate: () => setResult(undefined), onSuccess: setResult }),
  );
  return (
    <SectionCard
      title="Superusers"
      description="Who may see every account and act as one (superuser), and who may also change this page (super admin). Find a user's id on the account's page."
    >
      <form noValidate aria-label="Set a user's role" onSubmit={form.onSubmit((input) => set.mutate(input))}>
        <Stack gap="md">
          {set.isError ? (
            <Alert color="red" variant="light" title="Could not change the role" role="alert">
              {errorMessage(set.error)}
            </Alert>
          ) : null}
          {result ? (
            <Alert color="teal" variant="light" title="Role changed" role="status">
              {result.email} is now{' '}
              {result.superUserRole === 'admin'
                ? 'a super admin'
                : result.authorizationLevel === 'superuser'
                  ? 'a superuser'
                  : 'an ordinary user'}
              .
            </Alert>
          ) : null}
          <TextInput label="User id" required {...form.inputProps('userId')} />
          <Radio.Group
            label="Authorization level"
            value={String(form.values.authorizationLevel)}
            onChange={(value) => form.setValue('authorizationLevel', value === 'superuser' ? 'superuser' : 'user')}
            error={form.errors.authorizationLevel}
          >
            <Group gap="lg" mt={4}>
              {LEVELS.map((level) => (
                <Radio key={level.value} value={level.value} label={level.label} />
              ))}
            </Group>
          </Radio.Group>
          <Checkbox
            label="Super admin"
            description="Only for superusers."
            checked={form.values.superUserRole === 'admin'}
            onChange={(event) => form.setValue('superUserRole', event.currentTarget.checked ? 'admin' : null)}
            error={form.errors.superUserRole}
            aria-invalid={form.errors.superUserRole ? true : undefined}
          />
          <Group>
            <Button type="submit" loading={set.isPending}>
              Save role
            </Button>
          </Group>
        </Stack>
      </form>
    </SectionCard>
  );
}
