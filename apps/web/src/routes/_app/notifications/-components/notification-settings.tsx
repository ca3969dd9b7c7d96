import { Alert, Anchor, Button, Checkbox, Group, NumberInput, Select, Skeleton, Stack, Text } from '@mantine/core';
import {
  genericIssueMessage,
  NOTIFICATION_TYPE_DESCRIPTIONS,
  NOTIFICATION_TYPE_LABELS,
  NOTIFICATION_TYPES,
  type NotificationSettings,
  NotificationSettingsPatch,
  type NotificationType,
} from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { fieldErrors } from '../../../../lib/use-zod-form.ts';

const HOURS = Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: `${String(h).padStart(2, '0')}:00` }));

/** Per type: in-app only, or also in the daily e-mail digest; the digest hour; the thresholds watched. */
export function NotificationSettingsCard() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.notifications.settings.queryOptions());
  return (
    <SectionCard
      title="Settings"
      description="Every notification shows here and in the bell. Choose which also come by e-mail, in one digest a day."
    >
      {settings.isPending ? (
        <Skeleton height={240} role="status" aria-label="Loading notification settings" />
      ) : settings.isError ? (
        <QueryError
          title="Could not load the settings"
          error={settings.error}
          onRetry={settings.refetch}
          retrying={settings.isFetching}
        />
      ) : (
        <SettingsForm key={JSON.stringify(settings.data)} saved={settings.data} />
      )}
    </SectionCard>
  );
}

function SettingsForm({ saved }: { saved: NotificationSettings }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [emailTypes, setEmailTypes] = useState<NotificationType[]>(saved.emailTypes);
  const [digestHour, setDigestHour] = useState(String(saved.digestHour));
  const [orderWaitHours, setOrderWaitHours] = useState<string | number>(saved.orderWaitHours);
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const save = useMutation(
    trpc.notifications.updateSettings.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.notifications.settings.queryKey(), data);
        notify.success('Notification settings saved');
      },
      onError: (error) => notify.error(errorMessage(error)),
    }),
  );

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const candidate = {
      emailTypes,
      digestHour: Number(digestHour),
      orderWaitHours: orderWaitHours === '' ? undefined : Number(orderWaitHours),
    };
    const parsed = NotificationSettingsPatch.required()
      .omit({ lowStockThreshold: true })
      .safeParse(candidate, { error: genericIssueMessage });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    save.mutate(parsed.data);
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Checkbox.Group
          label="Also e-mail me about"
          description="Unchecked types stay in the app only."
          value={emailTypes}
          onChange={(value) => setEmailTypes(value as NotificationType[])}
        >
          <Stack gap={6} mt="xs">
            {NOTIFICATION_TYPES.map((type) => (
              <Checkbox
                key={type}
                value={type}
                label={NOTIFICATION_TYPE_LABELS[type]}
                description={NOTIFICATION_TYPE_DESCRIPTIONS[type]}
              />
            ))}
          </Stack>
        </Checkbox.Group>
        <Group gap="md" align="flex-start" wrap="wrap">
          <Select
            label="Daily digest at"
            description={`Your account's time zone: ${saved.timezone}`}
            data={HOURS}
            value={digestHour}
            onChange={(value) => setDigestHour(value ?? '8')}
            allowDeselect={false}
            w={200}
            error={errors.digestHour}
          />
          <NumberInput
            label="Order waiting too long after (hours)"
            description="Open orders older than this are notified."
            value={orderWaitHours}
            onChange={setOrderWaitHours}
            min={1}
            max={720}
            allowDecimal={false}
            w={260}
            error={errors.orderWaitHours}
          />
        </Group>
        <Text size="sm" c="dimmed">
          Low stock means {saved.lowStockThreshold} or fewer available to sell on a channel: your{' '}
          <Anchor component={Link} to="/settings/account">
            stock settings
          </Anchor>{' '}
          say so, for the dashboard too.
        </Text>
        {saved.nextDigestAt ? (
          <Text size="sm" c="dimmed">
            Next digest: {formatDateTime(saved.nextDigestAt.toISOString())} (only sent when there is something new).
          </Text>
        ) : (
          <Alert variant="light" color="gray">
            No e-mail digest: every type is in the app only.
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
