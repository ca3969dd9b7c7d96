import {
  Badge,
  Button,
  Card,
  Group,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  DEFAULT_PICKUP_EMAILS,
  type FulfillmentSettings,
  PICKUP_EMAIL_LABELS,
  PICKUP_EMAIL_STAGES,
  PICKUP_INSTRUCTIONS,
  PICKUP_PLACEHOLDER_KEYS,
  PICKUP_PLACEHOLDERS,
  type PickupEmailStage,
  PickupEmails,
  type PickupValues,
  renderPickupText,
} from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { basicDataOptions } from '../../../../lib/basic-data.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';

type Field = 'subject' | 'body';
type Errors = Partial<Record<`${PickupEmailStage}.${Field}`, string>>;

/** The first message per text of a failed parse, keyed `stage.field`. */
function errorsOf(emails: PickupEmails): Errors {
  const result = PickupEmails.safeParse(emails);
  const errors: Errors = {};
  if (result.success) return errors;
  for (const issue of result.error.issues) {
    const key = issue.path.slice(0, 2).join('.') as keyof Errors;
    errors[key] ??= issue.message;
  }
  return errors;
}

/**
 * Settings → Fulfillment, the pickup e-mails: subject and text of "ready for pickup" and "picked up", with
 * placeholders, previewed as the customer reads them (the same renderer the outbox uses).
 */
export function PickupEmailsSection() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.fulfillment.settings.queryOptions());
  return (
    <SectionCard
      title="Pickup e-mails"
      description="What customers receive when their pickup or curbside order is ready, and when they picked it up."
    >
      {settings.isPending ? (
        <Skeleton height={240} data-testid="pickup-emails-loading" />
      ) : settings.isError ? (
        <QueryError
          title="Could not load the pickup e-mails"
          error={settings.error}
          onRetry={settings.refetch}
          retrying={settings.isFetching}
        />
      ) : (
        <PickupEmailsForm key={JSON.stringify(settings.data.pickup_emails)} saved={settings.data} />
      )}
    </SectionCard>
  );
}

function PickupEmailsForm({ saved }: { saved: FulfillmentSettings }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const basic = useQuery(basicDataOptions(trpc));
  const stores = useQuery(trpc.fulfillment.stores.queryOptions());
  const [emails, setEmails] = useState<PickupEmails>(saved.pickup_emails);
  const [stage, setStage] = useState<PickupEmailStage>('ready');
  const [curbside, setCurbside] = useState(false);
  const [tried, setTried] = useState(false);
  const bodyRef = useRef<HTMLTextAreaElement>(null);
  const errors = tried ? errorsOf(emails) : {};
  const text = emails[stage];
  const dirty = JSON.stringify(emails) !== JSON.stringify(saved.pickup_emails);
  const save = useMutation(
    trpc.fulfillment.updatePickupEmails.mutationOptions({
      onSuccess: async (next) => {
        notify.success('Pickup e-mails saved.');
        queryClient.setQueryData(trpc.fulfillment.settings.queryKey(), next);
        await queryClient.invalidateQueries(trpc.hydration.getBasicData.queryFilter());
      },
      onError: (e) => notify.error(errorMessage(e)),
    }),
  );
  const setField = (field: Field, value: string) =>
    setEmails((current) => ({ ...current, [stage]: { ...current[stage], [field]: value } }));
  /** Puts `{key}` where the caret is in the text (at its end when the text has no focus yet). */
  const insert = (key: string) => {
    const area = bodyRef.current;
    const token = `{${key}}`;
    const start = area?.selectionStart ?? text.body.length;
    const end = area?.selectionEnd ?? start;
    setField('body', `${text.body.slice(0, start)}${token}${text.body.slice(end)}`);
    requestAnimationFrame(() => {
      area?.focus();
      area?.setSelectionRange(start + token.length, start + token.length);
    });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    const found = errorsOf(emails);
    const first = Object.keys(found)[0];
    if (first) {
      // Show the e-mail that holds the first problem.
      setStage(first.split('.')[0] as PickupEmailStage);
      return;
    }
    save.mutate(PickupEmails.parse(emails));
  };
  const store = stores.data?.stores.find((s) => s.storeId === stores.data?.defaultStoreId);
  const sample: PickupValues = {
    first_name: 'Ada',
    customer_name: 'Ada Lovelace',
    shop_name: basic.data?.account.business || 'Your shop',
    order_number: '#1001',
    store_name: store?.name ?? 'North store',
    store_address: '12 Main St, Springfield',
    pickup_type: curbside ? 'curbside pickup' : 'pickup',
    items: '2 × Red mug; 1 × Cap',
    pickup_instructions: PICKUP_INSTRUCTIONS[curbside ? 'curbside_pickup' : 'pickup'],
  };
  const preview = renderPickupText(text, sample);
  const stageErrors = (s: PickupEmailStage) => Boolean(errors[`${s}.subject`] || errors[`${s}.body`]);
  return (
    <form onSubmit={submit} noValidate data-testid="pickup-emails-form">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap">
          <SegmentedControl
            aria-label="E-mail"
            value={stage}
            onChange={(v) => setStage(v as PickupEmailStage)}
            data={PICKUP_EMAIL_STAGES.map((s) => ({
              value: s,
              label: `${PICKUP_EMAIL_LABELS[s]}${stageErrors(s) ? ' (!)' : ''}`,
            }))}
          />
          {saved.pickup_emails_custom ? (
            <Badge variant="light">Your texts</Badge>
          ) : (
            <Badge variant="light" color="gray">
              Default texts
            </Badge>
          )}
        </Group>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
          <Stack gap="sm">
            <TextInput
              label="Subject"
              value={text.subject}
              onChange={(e) => setField('subject', e.currentTarget.value)}
              error={errors[`${stage}.subject`]}
              required
            />
            <Textarea
              ref={bodyRef}
              label="Text"
              description="A blank line starts a new paragraph."
              value={text.body}
              onChange={(e) => setField('body', e.currentTarget.value)}
              error={errors[`${stage}.body`]}
              rows={10}
              required
            />
            <Stack gap={4}>
              <Text size="sm" fw={500} id="pickup-placeholders">
                Insert a placeholder
              </Text>
              <Group gap={6} role="group" aria-labelledby="pickup-placeholders">
                {PICKUP_PLACEHOLDER_KEYS.map((key) => (
                  <Tooltip key={key} label={PICKUP_PLACEHOLDERS[key]} withArrow>
                    <Button
                      size="compact-xs"
                      variant="default"
                      onClick={() => insert(key)}
                      aria-label={`Insert {${key}}`}
                    >
                      {`{${key}}`}
                    </Button>
                  </Tooltip>
                ))}
              </Group>
            </Stack>
          </Stack>
          <Stack gap="xs">
            <Group justify="space-between" wrap="wrap">
              <Title order={3} size="h6" id="pickup-preview">
                Preview
              </Title>
              <SegmentedControl
                size="xs"
                aria-label="Preview as"
                value={curbside ? 'curbside' : 'pickup'}
                onChange={(v) => setCurbside(v === 'curbside')}
                data={[
                  { value: 'pickup', label: 'In store' },
                  { value: 'curbside', label: 'Curbside' },
                ]}
              />
            </Group>
            <Card withBorder radius="md" padding="md" aria-labelledby="pickup-preview" data-testid="pickup-preview">
              <Stack gap="xs">
                <Text size="sm">
                  <Text span c="dimmed" size="sm">
                    Subject:{' '}
                  </Text>
                  <Text span fw={600} size="sm" data-testid="pickup-preview-subject">
                    {preview.subject || '—'}
                  </Text>
                </Text>
                {preview.paragraphs.map((p, i) => (
                  // Paragraphs have no identity beyond their place in the text.
                  // biome-ignore lint/suspicious/noArrayIndexKey: see above
                  <Text key={i} size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                    {p}
                  </Text>
                ))}
                <Text size="sm" c="blue">
                  {stage === 'ready' ? 'Directions to the store' : 'Store directions'} →
                </Text>
              </Stack>
            </Card>
            <Text size="xs" c="dimmed">
              Sample order #1001 of Ada Lovelace. A placeholder with no value takes the comma before it away.
            </Text>
          </Stack>
        </SimpleGrid>
        <Group gap="sm">
          <Button type="submit" loading={save.isPending} disabled={!dirty && !tried}>
            Save pickup e-mails
          </Button>
          <Button
            variant="default"
            onClick={() => setEmails((current) => ({ ...current, [stage]: DEFAULT_PICKUP_EMAILS[stage] }))}
            disabled={JSON.stringify(text) === JSON.stringify(DEFAULT_PICKUP_EMAILS[stage])}
          >
            Restore the default text
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
