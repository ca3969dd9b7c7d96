import { Alert, Button, Group, Stack, Switch, TextInput } from '@mantine/core';
import { type ChannelDetail, type ChannelFeatures, PatchChannelInput } from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';
import { applyChannelChange, channelsRest } from './channel-api.ts';

const NameForm = PatchChannelInput.required();

/** The channel's name in Switchyard (`PATCH channels/{id}`). */
export function ChannelNameCard({ channel }: { channel: ChannelDetail }) {
  return <NameCardBody key={channel.name} channel={channel} />;
}

function NameCardBody({ channel }: { channel: ChannelDetail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(NameForm, { name: channel.name });
  const rename = useMutation({
    mutationFn: (name: string) => channelsRest.rename(channel.id, { name }),
    onSuccess: async (changed) => {
      notify.success(`The channel is now called ${changed.name}.`);
      await applyChannelChange(queryClient, trpc, changed);
    },
  });
  const unchanged = String(form.values.name ?? '').trim() === channel.name;
  return (
    <SectionCard title="Name" description="How this channel is called across Switchyard: lists, orders and reports.">
      <form noValidate aria-label="Channel name" onSubmit={form.onSubmit(({ name }) => rename.mutate(name))}>
        <Stack gap="sm">
          {rename.isError ? (
            <Alert color="red" variant="light" title="Could not rename the channel" role="alert">
              {errorMessage(rename.error)}
            </Alert>
          ) : null}
          <Group align="flex-start" gap="sm" wrap="wrap">
            <TextInput label="Channel name" required maxLength={100} w={360} {...form.inputProps('name')} />
            <Button type="submit" mt={25} loading={rename.isPending} disabled={unchanged}>
              Rename
            </Button>
          </Group>
        </Stack>
      </form>
    </SectionCard>
  );
}

const FEATURES: { key: keyof ChannelFeatures; label: string; description: string }[] = [
  {
    key: 'inventory',
    label: 'Stock levels',
    description: 'Send available quantities to the channel and take its stock changes in.',
  },
  { key: 'catalog', label: 'Products', description: 'Import and publish products.' },
  { key: 'orders', label: 'Orders', description: 'Bring the channel’s orders in to be routed and fulfilled.' },
  { key: 'fulfillments', label: 'Fulfillments', description: 'Send shipments and tracking numbers back.' },
];

/** What Switchyard syncs with the channel (`PUT channels/{id}/actions/features`); each switch applies at once. */
export function ChannelFeaturesCard({ channel }: { channel: ChannelDetail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (change: Partial<ChannelFeatures>) => channelsRest.setFeatures(channel.id, change),
    onSuccess: async (changed, change) => {
      const [key, on] = Object.entries(change)[0] ?? [];
      const feature = FEATURES.find((f) => f.key === key);
      if (feature) notify.success(`${feature.label} sync is ${on ? 'on' : 'off'} for ${changed.name}.`);
      await applyChannelChange(queryClient, trpc, changed);
    },
  });
  const pendingKey = toggle.isPending ? Object.keys(toggle.variables ?? {})[0] : undefined;
  return (
    <SectionCard title="What Switchyard syncs" description="Changes apply at once.">
      {toggle.isError ? (
        <Alert color="red" variant="light" title="Could not change what syncs" role="alert">
          {errorMessage(toggle.error)}
        </Alert>
      ) : null}
      <Stack gap="sm">
        {FEATURES.map((feature) => (
          <Switch
            key={feature.key}
            label={feature.label}
            description={feature.description}
            checked={
              pendingKey === feature.key ? Boolean(toggle.variables?.[feature.key]) : channel.features[feature.key]
            }
            disabled={toggle.isPending}
            onChange={(event) => toggle.mutate({ [feature.key]: event.currentTarget.checked })}
          />
        ))}
      </Stack>
    </SectionCard>
  );
}
