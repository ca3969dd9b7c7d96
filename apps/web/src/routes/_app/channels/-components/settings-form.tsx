import { Alert, Button, Group, Modal, Paper, Stack, Text } from '@mantine/core';
import {
  CHANNEL_SETTING_SCHEMAS,
  type ChannelDetail,
  type ChannelSettingKey,
  type ChannelSettings,
} from '@switchyard/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useBlocker } from '@tanstack/react-router';
import { type ReactNode, useMemo, useState } from 'react';
import type { z } from 'zod';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';
import { applyChannelChange, channelsRest } from './channel-api.ts';

type Issue = z.core.$ZodRawIssue;

/**
 * Messages for the contract's rules that carry none of their own ("* Required" and the like in the
 * contracts win over these): numbers and lengths out of range, blanks, malformed dates.
 */
function friendlyMessage(issue: Issue): string | undefined {
  const input: unknown = issue.input;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined || input === null || input === '') return '* Required';
      return issue.expected === 'int' ? 'Use a whole number' : 'Enter a valid value';
    case 'too_small':
      return issue.origin === 'number' ? `Must be at least ${issue.minimum}` : '* Required';
    case 'too_big':
      return issue.origin === 'number'
        ? `Must be at most ${issue.maximum}`
        : issue.origin === 'string'
          ? `Use at most ${issue.maximum} characters`
          : `At most ${issue.maximum}`;
    case 'invalid_format':
      return 'Enter a valid date';
    default:
      return undefined;
  }
}

/** Every failed rule by its dotted path (`methodMap.0.carrier`), the first message for each. */
export function issuesByPath(schema: z.ZodType, values: unknown): Record<string, string> {
  const result = schema.safeParse(values, { error: friendlyMessage });
  const out: Record<string, string> = {};
  if (result.success) return out;
  for (const issue of result.error.issues) {
    const path = issue.path.map(String).join('.');
    if (!(path in out)) out[path] = issue.message;
  }
  return out;
}

export interface SectionForm<T> {
  values: T;
  set: <F extends keyof T & string>(field: F, value: T[F]) => void;
  /** The message for a field once the form has been submitted (`'locationMap.2.storeId'`). */
  errorAt: (path: string) => string | undefined;
  disabled: boolean;
}

export interface SettingsFormProps<K extends ChannelSettingKey> {
  channel: ChannelDetail;
  section: K;
  /** Names the form and the success toast: "Shipping settings". */
  label: string;
  /** What the form starts from; the saved section unless the page prepared it (new locations, say). */
  initial?: ChannelSettings[K];
  children: (form: SectionForm<ChannelSettings[K]>) => ReactNode;
}

/**
 * One settings section (`PUT channels/{id}/settings/{key}`), checked with the contract's schema. A save bar
 * appears once something changed; leaving with unsaved changes asks first. Discarding starts over.
 */
export function SettingsForm<K extends ChannelSettingKey>(props: SettingsFormProps<K>) {
  const [round, setRound] = useState(0);
  // A save puts the answer in the cache; the form then starts afresh from what was saved.
  const saved = JSON.stringify(props.channel.settings[props.section]);
  return <SettingsFormBody key={`${round}:${saved}`} {...props} onDiscard={() => setRound((n) => n + 1)} />;
}

function SettingsFormBody<K extends ChannelSettingKey>({
  channel,
  section,
  label,
  initial,
  children,
  onDiscard,
}: SettingsFormProps<K> & { onDiscard: () => void }) {
  type Section = ChannelSettings[K];
  const schema = CHANNEL_SETTING_SCHEMAS[section] as unknown as z.ZodType<Section, Section & Record<string, unknown>>;
  const saved = channel.settings[section];
  const start = initial ?? saved;
  const form = useZodForm(schema, start as Section & Record<string, unknown>);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (data: Section) => channelsRest.saveSettings(channel.id, section, data),
    onSuccess: async (changed) => {
      notify.success(`${label} saved.`);
      await applyChannelChange(queryClient, trpc, changed);
    },
  });

  const values = form.values as Section;
  const dirty = JSON.stringify(values) !== JSON.stringify(saved);
  const issues = useMemo(() => (form.submitted ? issuesByPath(schema, values) : {}), [form.submitted, schema, values]);
  const invalid = Object.keys(issues).length > 0;

  const blocker = useBlocker({
    shouldBlockFn: () => dirty && !save.isPending,
    enableBeforeUnload: () => dirty,
    withResolver: true,
  });

  const api: SectionForm<Section> = {
    values,
    set: (field, value) => form.setValue(field as never, value as never),
    errorAt: (path) => issues[path],
    disabled: save.isPending,
  };

  return (
    <form noValidate aria-label={label} onSubmit={form.onSubmit((data) => save.mutate(data as Section))}>
      <Stack gap="lg">
        {children(api)}
        {dirty || save.isError ? (
          <Paper
            withBorder
            shadow="md"
            radius="md"
            p="sm"
            role="region"
            aria-label="Unsaved changes"
            style={{ position: 'sticky', bottom: 'var(--mantine-spacing-md)', zIndex: 5 }}
          >
            <Stack gap="xs">
              {save.isError ? (
                <Alert color="red" variant="light" title={`Could not save the ${label.toLowerCase()}`} role="alert">
                  {errorMessage(save.error)}
                </Alert>
              ) : null}
              <Group justify="space-between" wrap="wrap" gap="sm">
                <Text size="sm" c={invalid ? 'red' : undefined} fw={500}>
                  {invalid ? 'Some fields need attention.' : 'You have unsaved changes.'}
                </Text>
                <Group gap="xs">
                  <Button variant="default" onClick={onDiscard} disabled={save.isPending || !dirty}>
                    Discard
                  </Button>
                  <Button type="submit" loading={save.isPending} disabled={!dirty}>
                    Save
                  </Button>
                </Group>
              </Group>
            </Stack>
          </Paper>
        ) : null}
      </Stack>
      <Modal opened={blocker.status === 'blocked'} onClose={() => blocker.reset?.()} title="Leave without saving?">
        <Stack gap="md">
          <Text size="sm">
            Your changes to the {label.toLowerCase()} of {channel.name} have not been saved.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => blocker.reset?.()} data-autofocus>
              Stay
            </Button>
            <Button color="red" onClick={() => blocker.proceed?.()}>
              Leave without saving
            </Button>
          </Group>
        </Stack>
      </Modal>
    </form>
  );
}
