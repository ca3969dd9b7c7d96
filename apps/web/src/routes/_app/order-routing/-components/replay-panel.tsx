import { Alert, Button, Group, NumberInput, Progress, SegmentedControl, Stack, Table, Text } from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import {
  type ReplayInput,
  type ReplayMetrics,
  type ReplaySummary,
  ROUTING_LIMITS,
  type RoutingRule,
} from '@switchyard/contracts';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { formatDistance } from '../../../../components/routing-trace.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import type { RuleSource } from './dry-run-panel.tsx';

const NUMBER = new Intl.NumberFormat();
const PERCENT = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

interface MetricRow {
  label: string;
  value: (m: ReplayMetrics) => number | null;
  format: (n: number | null) => string;
  /** How a difference reads ("+0.20", "−3 km"). */
  delta: (d: number) => string;
}

const signed = (d: number, text: string) => `${d > 0 ? '+' : d < 0 ? '−' : '±'}${text}`;

/** Every metric is better lower: fewer shipments, fewer splits, shorter distances, nothing unplaced. */
export const REPLAY_METRICS: MetricRow[] = [
  {
    label: 'Shipments per order',
    value: (m) => m.shipmentsPerOrder,
    format: (n) => (n === null ? '—' : n.toFixed(2)),
    delta: (d) => signed(d, Math.abs(d).toFixed(2)),
  },
  {
    label: 'Split rate',
    value: (m) => m.splitRate,
    format: (n) => (n === null ? '—' : PERCENT.format(n)),
    delta: (d) => signed(d, `${(Math.abs(d) * 100).toFixed(1)} points`),
  },
  {
    label: 'Average distance',
    value: (m) => m.avgDistanceKm,
    format: (n) => (n === null ? 'unknown' : formatDistance(n)),
    delta: (d) => signed(d, formatDistance(Math.abs(d))),
  },
  {
    label: 'Lines that could not be placed',
    value: (m) => m.unplacedLines,
    format: (n) => (n === null ? '—' : NUMBER.format(n)),
    delta: (d) => signed(d, NUMBER.format(Math.abs(d))),
  },
];

export interface ReplayPanelProps {
  draft: readonly RoutingRule[];
  hasChanges: boolean;
  liveVersion: number;
  /** Opens an example order in the dry run. */
  onTry: (order: { orderId: string; label: string }) => void;
}

/** Runs the rules over the last N orders (stock as it is now, nothing reserved) and compares with what happened. */
export function ReplayPanel({ draft, hasChanges, liveVersion, onTry }: ReplayPanelProps) {
  const trpc = useTRPC();
  const [source, setSource] = useState<RuleSource>('draft');
  const [limit, setLimit] = useState<number | string>(500);
  const [limitError, setLimitError] = useState<string | null>(null);
  const replay = useMutation(trpc.routing.replay.mutationOptions());
  const elapsed = useElapsed(replay.isPending);

  function run() {
    const n = typeof limit === 'number' ? limit : Number(limit);
    if (limit === '' || !Number.isInteger(n) || n < 1 || n > ROUTING_LIMITS.replayOrders) {
      setLimitError(`Enter a whole number from 1 to ${NUMBER.format(ROUTING_LIMITS.replayOrders)}`);
      return;
    }
    setLimitError(null);
    const ruleSet: ReplayInput['ruleSet'] =
      source === 'draft' ? { source: 'draft', rules: [...draft] } : { source: 'live' };
    replay.mutate({ ruleSet, limit: n });
  }

  return (
    <SectionCard
      title="Replay"
      description="Route your last orders again by these rules, with the stock as it is now, and compare with what happened. Nothing is reserved."
    >
      <form
        aria-label="Replay"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          run();
        }}
      >
        <Group gap="lg" align="flex-end" wrap="wrap">
          <Stack gap={4}>
            <Text size="sm" fw={500} id="replay-rules">
              Rules
            </Text>
            <SegmentedControl
              aria-labelledby="replay-rules"
              value={source}
              onChange={(value) => setSource(value as RuleSource)}
              data={[
                { value: 'draft', label: hasChanges ? 'Draft (unsaved changes)' : 'Draft' },
                {
                  value: 'live',
                  label: liveVersion === 0 ? 'Live (built-in default)' : `Live (version ${liveVersion})`,
                },
              ]}
            />
          </Stack>
          <NumberInput
            label="Last orders"
            min={1}
            max={ROUTING_LIMITS.replayOrders}
            allowDecimal={false}
            allowNegative={false}
            thousandSeparator=","
            value={limit}
            onChange={setLimit}
            error={limitError}
            w={160}
          />
          <Button type="submit" loading={replay.isPending}>
            Run replay
          </Button>
        </Group>
      </form>

      {replay.isPending ? (
        <Stack gap={4} role="status" aria-live="polite">
          <Progress value={100} animated striped aria-label="Replay running" />
          <Text size="sm" c="dimmed">
            Replaying the last {NUMBER.format(Number(replay.variables?.limit ?? 0))} orders… {elapsed} s
          </Text>
        </Stack>
      ) : null}
      {replay.isError ? (
        <Alert color="red" variant="light" title="The replay did not finish" role="alert">
          {errorMessage(replay.error)}
        </Alert>
      ) : null}
      {replay.data && !replay.isPending ? <ReplayResult summary={replay.data} onTry={onTry} /> : null}
    </SectionCard>
  );
}

/** Whole seconds since `running` became true. */
function useElapsed(running: boolean): number {
  const [seconds, setSeconds] = useState(0);
  const interval = useInterval(() => setSeconds((s) => s + 1), 1000);
  useEffect(() => {
    setSeconds(0);
    if (running) interval.start();
    else interval.stop();
    return interval.stop;
  }, [running, interval.start, interval.stop]);
  return seconds;
}

export function ReplayResult({
  summary,
  onTry,
}: {
  summary: ReplaySummary;
  onTry: (order: { orderId: string; label: string }) => void;
}) {
  if (summary.orders === 0)
    return (
      <Alert variant="light" title="No orders to replay">
        No order has been routed yet. Once orders come in, a replay compares them with these rules.
      </Alert>
    );
  return (
    <Stack gap="sm">
      <Text size="sm">
        {NUMBER.format(summary.orders)} order{summary.orders === 1 ? '' : 's'} replayed in{' '}
        {(summary.tookMs / 1000).toFixed(1)} s. {NUMBER.format(summary.changedOrders)} would ship from different
        locations.
      </Text>
      <Table aria-label="Replay comparison" verticalSpacing={6}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Measure</Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              What happened
            </Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              With these rules
            </Table.Th>
            <Table.Th scope="col" style={{ textAlign: 'right' }}>
              Change
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {REPLAY_METRICS.map((metric) => {
            const actual = metric.value(summary.actual);
            const draft = metric.value(summary.draft);
            const diff = actual === null || draft === null ? null : draft - actual;
            const color = diff === null || Math.abs(diff) < 1e-9 ? 'dimmed' : diff < 0 ? 'teal' : 'red';
            return (
              <Table.Tr key={metric.label}>
                <Table.Th scope="row" fw={500}>
                  {metric.label}
                </Table.Th>
                <Table.Td style={{ textAlign: 'right' }}>{metric.format(actual)}</Table.Td>
                <Table.Td style={{ textAlign: 'right' }}>{metric.format(draft)}</Table.Td>
                <Table.Td style={{ textAlign: 'right' }}>
                  <Text span size="sm" c={color}>
                    {diff === null ? '—' : Math.abs(diff) < 1e-9 ? 'Same' : metric.delta(diff)}
                  </Text>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      {summary.examples.length > 0 ? (
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Orders that would change
          </Text>
          <Stack gap={4} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {summary.examples.map((example) => (
              <li key={example.orderId}>
                <Group gap="sm" wrap="wrap">
                  <Text size="sm" fw={500}>
                    {example.number}
                  </Text>
                  <Text size="sm" c="dimmed">
                    {example.actual.join(', ') || 'nowhere'} → {example.draft.join(', ') || 'nowhere'}
                  </Text>
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    onClick={() => onTry({ orderId: example.orderId, label: example.number })}
                  >
                    Dry-run {example.number}
                  </Button>
                </Group>
              </li>
            ))}
          </Stack>
        </Stack>
      ) : null}
    </Stack>
  );
}
