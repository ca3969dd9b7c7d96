import { Alert, Badge, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import type { RoutingRule } from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Pager } from '../../../../components/pager.tsx';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { formatDateTime } from '../../../../lib/format.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { VERSIONS_PAGE_SIZE, versionListOptions } from './routing-api.ts';
import { describeRule, type RuleNames } from './rule-words.ts';

export interface VersionHistoryProps {
  names: RuleNames;
  /** Puts a saved version's rules into the draft (to save again, or to change from there). */
  onLoad: (version: number, rules: RoutingRule[]) => void;
}

/** Every saved version, newest first: who saved it, when, and why; each can be read and loaded into the draft. */
export function VersionHistory({ names, onLoad }: VersionHistoryProps) {
  const trpc = useTRPC();
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<number | null>(null);
  const versions = useQuery({ ...versionListOptions(trpc, offset), placeholderData: keepPreviousData });

  return (
    <SectionCard
      title="Version history"
      description="Each save is a new version; every routing decision names the version it used."
    >
      {versions.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading the versions">
          <Skeleton height={48} />
          <Skeleton height={48} />
        </Stack>
      ) : versions.isError ? (
        <QueryError
          title="Could not load the versions"
          error={versions.error}
          onRetry={versions.refetch}
          retrying={versions.isFetching}
        />
      ) : versions.data.results.length === 0 ? (
        <Text size="sm" c="dimmed">
          No version saved yet: orders are routed by the built-in default rule.
        </Text>
      ) : (
        <Stack gap="sm">
          <Stack gap="xs" component="ol" aria-label="Versions" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {versions.data.results.map((v) => (
              <li key={v.version} aria-label={`Version ${v.version}`}>
                <Stack gap={4}>
                  <Group gap="sm" justify="space-between" wrap="wrap">
                    <Group gap="xs">
                      <Text fw={600}>Version {v.version}</Text>
                      {v.live ? (
                        <Badge size="sm" color="teal" variant="light">
                          Live
                        </Badge>
                      ) : null}
                      <Text size="sm" c="dimmed">
                        {v.ruleCount} rule{v.ruleCount === 1 ? '' : 's'} · by {v.createdBy ?? 'Switchyard'} ·{' '}
                        <time dateTime={v.createdAt.toISOString()}>{formatDateTime(v.createdAt.toISOString())}</time>
                      </Text>
                    </Group>
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      aria-expanded={open === v.version}
                      onClick={() => setOpen(open === v.version ? null : v.version)}
                    >
                      {open === v.version ? `Hide version ${v.version}` : `Show version ${v.version}`}
                    </Button>
                  </Group>
                  {v.note ? <Text size="sm">{v.note}</Text> : null}
                  {open === v.version ? <VersionRules version={v.version} names={names} onLoad={onLoad} /> : null}
                </Stack>
              </li>
            ))}
          </Stack>
          <Pager
            total={versions.data.total}
            limit={VERSIONS_PAGE_SIZE}
            offset={offset}
            onChange={setOffset}
            label="Versions"
            disabled={versions.isFetching}
          />
        </Stack>
      )}
    </SectionCard>
  );
}

function VersionRules({ version, names, onLoad }: { version: number } & VersionHistoryProps) {
  const trpc = useTRPC();
  const set = useQuery(trpc.routing.version.queryOptions({ version }));
  if (set.isPending) return <Skeleton height={60} role="status" aria-label={`Loading version ${version}`} />;
  if (set.isError)
    return (
      <QueryError
        title={`Could not load version ${version}`}
        error={set.error}
        onRetry={set.refetch}
        retrying={set.isFetching}
      />
    );
  return (
    <Alert variant="light" color="gray" title={`Rules of version ${version}`}>
      <Stack gap="xs">
        <Stack gap={4} component="ol" style={{ margin: 0, paddingLeft: 20 }}>
          {set.data.rules.map((rule) => {
            const { when, how } = describeRule(rule, names);
            return (
              <li key={rule.id}>
                <Text size="sm">
                  <Text span fw={600}>
                    {rule.name}
                    {rule.enabled ? '' : ' (off)'}
                  </Text>
                  : {when}. {how}
                </Text>
              </li>
            );
          })}
        </Stack>
        <Group>
          <Button size="xs" variant="default" onClick={() => onLoad(version, set.data.rules)}>
            Load version {version} into the draft
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
