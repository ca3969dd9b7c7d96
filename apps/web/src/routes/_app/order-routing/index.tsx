import { Alert, Button, Group, Modal, Skeleton, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import type { RoutingLocation, RoutingRule, RoutingRuleSet } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, stripSearchParams, useNavigate } from '@tanstack/react-router';
import { TRPCClientError } from '@trpc/client';
import { useState } from 'react';
import { z } from 'zod';
import { QueryError } from '../../../components/query-error.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { errorMessage } from '../../../lib/errors.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { notify } from '../../../lib/toast.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { channelListOptions } from '../channels/-components/channel-api.ts';
import { DryRunPanel } from './-components/dry-run-panel.tsx';
import { ReplayPanel } from './-components/replay-panel.tsx';
import { liveRulesOptions, refreshRouting, routingLocationsOptions } from './-components/routing-api.ts';
import { emptyRuleForm, formFromRule, type RuleForm, sameRules } from './-components/rule-draft.ts';
import { type ChannelOption, RuleEditorModal } from './-components/rule-editor.tsx';
import { RuleList } from './-components/rule-list.tsx';
import type { RuleNames } from './-components/rule-words.ts';
import { VersionHistory } from './-components/version-history.tsx';
import { WaitingLines } from './-components/waiting-lines.tsx';

const TABS = ['rules', 'dry-run', 'replay', 'waiting', 'history'] as const;
type Tab = (typeof TABS)[number];
const RoutingSearch = z.object({ tab: z.enum(TABS).catch('rules').default('rules') });

export const Route = createFileRoute('/_app/order-routing/')({
  validateSearch: RoutingSearch,
  search: { middlewares: [stripSearchParams({ tab: 'rules' as const })] },
  loader: ({ context: { queryClient, trpc } }) => {
    void queryClient.prefetchQuery(liveRulesOptions(trpc));
    void queryClient.prefetchQuery(routingLocationsOptions(trpc));
  },
  component: OrderRoutingPage,
});

function OrderRoutingPage() {
  const trpc = useTRPC();
  const live = useQuery(liveRulesOptions(trpc));
  const locations = useQuery(routingLocationsOptions(trpc));
  return (
    <Stack gap="lg" maw={1100}>
      <Stack gap={4}>
        <Title order={1}>Order routing</Title>
        <Text c="dimmed" size="sm">
          Which location fulfils each line of each order. Rules are tried from the top; the first that applies to a line
          decides where it ships from. Every decision is kept with its reasons on the order.
        </Text>
      </Stack>
      {live.isPending || locations.isPending ? (
        <Stack gap="sm" role="status" aria-label="Loading the routing rules">
          <Skeleton height={40} width="50%" />
          <Skeleton height={90} />
          <Skeleton height={90} />
        </Stack>
      ) : live.isError || locations.isError ? (
        <QueryError
          title="Could not load the routing rules"
          error={live.error ?? locations.error}
          onRetry={() => Promise.all([live.refetch(), locations.refetch()])}
          retrying={live.isFetching || locations.isFetching}
        />
      ) : (
        <RoutingWorkspace live={live.data} locations={locations.data} />
      )}
    </Stack>
  );
}

type Editing = { index: number | null; form: RuleForm } | null;

function RoutingWorkspace({ live, locations }: { live: RoutingRuleSet; locations: RoutingLocation[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate({ from: Route.fullPath });
  const { tab } = Route.useSearch();
  const channelsQuery = useQuery(channelListOptions(trpc));
  const channels: ChannelOption[] = (channelsQuery.data ?? []).map((c) => ({ id: c.id, name: c.name, type: c.type }));
  // The draft: null follows the live rules; the first change copies them. `base` is the version it started from.
  const [draft, setDraft] = useState<{ base: number; rules: RoutingRule[] } | null>(null);
  const [editing, setEditing] = useState<Editing>(null);
  const [saving, setSaving] = useState(false);
  const [note, setNote] = useState('');
  const [preset, setPreset] = useState<{ orderId: string; label: string } | null>(null);
  const rules = draft?.rules ?? live.rules;
  const hasChanges = draft !== null && (draft.base !== live.version || !sameRules(draft.rules, live.rules));
  const names: RuleNames = {
    channels: new Map(channels.map((c) => [c.id, c.name])),
    locations: new Map(locations.map((l) => [l.id, l.name])),
  };
  const change = (next: RoutingRule[]) => setDraft({ base: draft?.base ?? live.version, rules: next });

  const save = useMutation(
    trpc.routing.save.mutationOptions({
      onSuccess: async (saved) => {
        notify.success(`Version ${saved.version} saved: new orders are routed by it`);
        setSaving(false);
        setNote('');
        setDraft(null);
        queryClient.setQueryData(trpc.routing.rules.queryKey(), saved);
        await refreshRouting(queryClient, trpc);
      },
      // Someone saved meanwhile: the live rules are read again, so the draft can start from them.
      onError: () => void refreshRouting(queryClient, trpc),
    }),
  );
  const stale =
    save.error instanceof TRPCClientError && (save.error.data as { code?: string } | undefined)?.code === 'CONFLICT';

  const setTab = (next: Tab) => void navigate({ search: { tab: next } });

  return (
    <Stack gap="md">
      {hasChanges ? (
        <Alert color="yellow" variant="light" title="Unsaved changes" role="status">
          <Group justify="space-between" gap="sm" wrap="wrap">
            <Text size="sm">
              This draft changes {live.version === 0 ? 'the built-in default rules' : `version ${live.version}`}. Try it
              in a dry run or a replay, then save it as a new version; until then orders are routed by the live rules.
            </Text>
            <Group gap="xs">
              <Button variant="default" size="xs" onClick={() => setDraft(null)}>
                Discard changes
              </Button>
              <Button size="xs" onClick={() => setSaving(true)}>
                Save as a new version
              </Button>
            </Group>
          </Group>
        </Alert>
      ) : null}

      <Tabs value={tab} onChange={(value) => value && setTab(value as Tab)} keepMounted>
        <Tabs.List aria-label="Order routing">
          <Tabs.Tab value="rules">Rules</Tabs.Tab>
          <Tabs.Tab value="dry-run">Dry run</Tabs.Tab>
          <Tabs.Tab value="replay">Replay</Tabs.Tab>
          <Tabs.Tab value="waiting">Waiting lines</Tabs.Tab>
          <Tabs.Tab value="history">Version history</Tabs.Tab>
        </Tabs.List>

        <Tabs.Panel value="rules" pt="md">
          <SectionCard
            title="Rules"
            description={
              live.version === 0
                ? 'Live: the built-in default (nothing saved yet).'
                : `Live: version ${live.version}, saved by ${live.createdBy ?? 'Switchyard'} ${formatDateTime(live.createdAt?.toISOString())}.`
            }
            actions={
              <Button size="xs" onClick={() => setEditing({ index: null, form: emptyRuleForm() })}>
                Add rule
              </Button>
            }
          >
            {rules.length === 1 ? (
              <Text size="sm" c="dimmed">
                Only the default rule so far: every order goes to the locations by their routing priority. Add a rule to
                ship from the nearest store, keep orders whole, or send some orders to some locations.
              </Text>
            ) : null}
            <RuleList
              rules={rules}
              names={names}
              onReorder={change}
              onEdit={(index) => setEditing({ index, form: formFromRule(rules[index] as RoutingRule) })}
              onDelete={(index) => {
                const removed = rules[index] as RoutingRule;
                const before = rules;
                change(rules.filter((_, i) => i !== index));
                notify.info(`Rule ${removed.name} removed from the draft`, {
                  action: { label: 'Undo', onClick: () => change(before) },
                });
              }}
            />
          </SectionCard>
        </Tabs.Panel>

        <Tabs.Panel value="dry-run" pt="md">
          <DryRunPanel
            key={preset?.orderId ?? 'none'}
            draft={rules}
            hasChanges={hasChanges}
            liveVersion={live.version}
            locations={locations}
            channels={channels}
            preset={preset}
          />
        </Tabs.Panel>

        <Tabs.Panel value="replay" pt="md">
          <ReplayPanel
            draft={rules}
            hasChanges={hasChanges}
            liveVersion={live.version}
            onTry={(order) => {
              setPreset(order);
              setTab('dry-run');
            }}
          />
        </Tabs.Panel>

        <Tabs.Panel value="waiting" pt="md">
          {/* Read only while shown: it polls. */}
          {tab === 'waiting' ? <WaitingLines /> : null}
        </Tabs.Panel>

        <Tabs.Panel value="history" pt="md">
          <VersionHistory
            names={names}
            onLoad={(version, loaded) => {
              change(loaded);
              notify.info(`Version ${version} is in the draft: save it to make it live again`);
              setTab('rules');
            }}
          />
        </Tabs.Panel>
      </Tabs>

      <RuleEditorModal
        initial={editing?.form ?? null}
        isNew={editing?.index === null}
        otherRules={rules}
        locations={locations}
        channels={channels}
        onClose={() => setEditing(null)}
        onDone={(rule) => {
          if (!editing) return;
          if (editing.index === null) {
            // A new rule goes just above the default rule.
            const at = rules.findIndex((r) => r.isDefault);
            const next = [...rules];
            next.splice(at === -1 ? next.length : at, 0, rule);
            change(next);
          } else change(rules.map((r, i) => (i === editing.index ? rule : r)));
          setEditing(null);
        }}
      />

      <Modal opened={saving} onClose={() => setSaving(false)} title="Save as a new version">
        <form
          aria-label="Save as a new version"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate({ baseVersion: draft?.base ?? live.version, rules, note: note.trim() || undefined });
          }}
        >
          <Stack gap="md">
            <Text size="sm">
              New orders are routed by the new version as soon as it is saved. Orders already routed keep their stores.
            </Text>
            <TextInput
              label="What changed (optional)"
              maxLength={500}
              value={note}
              onChange={(event) => setNote(event.currentTarget.value)}
              data-autofocus
            />
            {save.isError ? (
              <Alert color="red" variant="light" title="Not saved" role="alert">
                <Stack gap="xs" align="flex-start">
                  <Text size="sm">{errorMessage(save.error)}</Text>
                  {stale ? (
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => {
                        setDraft(null);
                        setSaving(false);
                        save.reset();
                      }}
                    >
                      Discard this draft and start from the latest rules
                    </Button>
                  ) : null}
                </Stack>
              </Alert>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setSaving(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending}>
                Save version
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}
