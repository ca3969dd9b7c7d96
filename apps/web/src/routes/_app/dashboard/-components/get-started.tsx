import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  List,
  Progress,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import type { BasicData, ChannelMappingStatus, ChannelSummary } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link, type LinkProps } from '@tanstack/react-router';
import { useId } from 'react';
import { basicDataOptions, settingValue } from '../../../../lib/basic-data.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { retryUnlessRefused } from '../../../../lib/query-client.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { channelListOptions } from '../../channels/-components/channel-api.ts';
import { ChannelLocationsOffer, useLocationOffers } from '../../locations/-components/channel-locations-offer.tsx';

export interface ChecklistStep {
  id: string;
  label: string;
  done: boolean;
  /** Only for steps whose screen exists; the others show as text. */
  to?: NonNullable<LinkProps['to']>;
}

/** What the account has set up so far, as the channel list and the location mapping tell. */
export interface SetupState {
  channels?: ChannelSummary[];
  mapping?: ChannelMappingStatus[];
}

/**
 * The onboarding steps: the account status, the onboarding account settings, and what the channels and the
 * location mapping show (a step done there is done whatever the settings say).
 */
export function checklistSteps(
  data: Pick<BasicData, 'account' | 'accountSettings'>,
  setup: SetupState = {},
): ChecklistStep[] {
  const { status } = data.account;
  const flag = (key: string) => settingValue(data.accountSettings, key) === true;
  const connected = setup.channels?.some((c) => c.status === 'connected') ?? false;
  const mapped = (setup.mapping?.some((m) => m.mapped > 0) ?? false) && !(setup.mapping?.some((m) => m.offer) ?? false);
  const imported = setup.channels?.some((c) => c.status !== 'disconnected' && c.lastSyncAt !== null) ?? false;
  return [
    { id: 'confirm', label: 'Confirm your e-mail', done: status !== 'created' },
    { id: 'plan', label: 'Choose a plan', done: status === 'active' || status === 'past_due' },
    {
      id: 'channels',
      label: 'Connect a sales channel',
      done: connected || flag('onboarding.channels_connected'),
      to: '/channels',
    },
    {
      id: 'locations',
      label: 'Map your locations',
      done: mapped || flag('onboarding.locations_mapped'),
      to: '/locations',
    },
    {
      id: 'catalog',
      label: 'Import your catalog',
      done: imported || flag('onboarding.catalog_imported'),
      to: '/products',
    },
  ];
}

function StepIcon({ done }: { done: boolean }) {
  return (
    <ThemeIcon size={22} radius="xl" color={done ? 'teal' : 'gray'} variant={done ? 'filled' : 'light'} aria-hidden>
      <svg
        width="12"
        height="12"
        viewBox="0 0 16 16"
        fill="none"
        stroke="currentColor"
        strokeWidth="2.5"
        aria-hidden="true"
      >
        {done ? (
          <path d="M3 8.5l3.2 3L13 5" strokeLinecap="round" strokeLinejoin="round" />
        ) : (
          <circle cx="8" cy="8" r="2" />
        )}
      </svg>
    </ThemeIcon>
  );
}

/** "Get started": what is left to do before the back office is fully set up. */
export function GetStarted() {
  const trpc = useTRPC();
  const basic = useQuery(basicDataOptions(trpc));
  const channels = useQuery({ ...channelListOptions(trpc), retry: retryUnlessRefused });
  const { mapping, offers } = useLocationOffers();
  const titleId = useId();
  // Three steps are read from the channels and their mapping: until those answer, the list would call done
  // steps "to do" (a merchant with three shops connected saw "Connect a sales channel" for a moment).
  const readingSetup = channels.isLoading || mapping.isLoading;

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={titleId}>
      <Stack gap="md">
        <Title order={2} size="h3" id={titleId}>
          Get started
        </Title>
        {basic.isPending ? (
          <ChecklistLoading />
        ) : basic.isError ? (
          <Alert color="red" variant="light" title="Could not load your checklist" role="alert">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">{errorMessage(basic.error)}</Text>
              <Button size="xs" variant="default" onClick={() => void basic.refetch()} loading={basic.isFetching}>
                Try again
              </Button>
            </Stack>
          </Alert>
        ) : readingSetup ? (
          <ChecklistLoading />
        ) : (
          <>
            <Checklist steps={checklistSteps(basic.data, { channels: channels.data, mapping: mapping.data })} />
            {offers.map((status) => (
              <ChannelLocationsOffer key={status.channelId} status={status} />
            ))}
          </>
        )}
      </Stack>
    </Card>
  );
}

function ChecklistLoading() {
  return (
    <Stack gap="xs" role="status" aria-label="Loading the checklist">
      {[0, 1, 2, 3, 4].map((row) => (
        <Skeleton key={row} height={22} />
      ))}
    </Stack>
  );
}

function Checklist({ steps }: { steps: ChecklistStep[] }) {
  const done = steps.filter((step) => step.done).length;
  const progressLabel = `${done} of ${steps.length} steps done`;
  return (
    <Stack gap="sm">
      <Group justify="space-between" gap="xs">
        <Text size="sm" c="dimmed">
          {progressLabel}
        </Text>
        {done === steps.length ? (
          <Badge color="teal" autoContrast>
            All set
          </Badge>
        ) : null}
      </Group>
      <Progress value={(done / steps.length) * 100} aria-label={progressLabel} size="sm" />
      <List spacing="sm" listStyleType="none" aria-label="Setup steps">
        {steps.map((step) => (
          <List.Item key={step.id} icon={<StepIcon done={step.done} />} data-done={step.done}>
            <Group gap="xs">
              {step.to && !step.done ? (
                <Anchor component={Link} to={step.to}>
                  {step.label}
                </Anchor>
              ) : (
                <Text td={step.done ? 'line-through' : undefined} c={step.done ? 'dimmed' : undefined}>
                  {step.label}
                </Text>
              )}
              {/* Teal text on white read at 2.5:1; the struck-through label and the check already say it is done. */}
              <Text span size="xs" c="dimmed">
                {step.done ? '(done)' : '(to do)'}
              </Text>
            </Group>
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}
