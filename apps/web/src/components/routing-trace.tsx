import { Badge, Group, List, Stack, Table, Text } from '@mantine/core';
import {
  type DecisionTrace,
  REJECTION_LABELS,
  type TraceCandidate,
  type TraceLine,
  type TraceRule,
} from '@switchyard/contracts';

// A routing decision's trace in plain words: used by the dry run (order routing) and "Why this store" (order detail).

const NUMBER = new Intl.NumberFormat();

/** "12 km", "3.4 km", or "distance unknown" when either end has no coordinates. */
export function formatDistance(km: number | null): string {
  if (km === null) return 'distance unknown';
  return `${km < 10 ? km.toFixed(1) : NUMBER.format(Math.round(km))} km`;
}

const OUTCOME_BADGES: Record<TraceLine['outcome'], { label: string; color: string }> = {
  allocated: { label: 'Placed', color: 'teal' },
  split: { label: 'Split', color: 'blue' },
  partial: { label: 'Partly placed', color: 'orange' },
  unplaced: { label: 'Not placed', color: 'red' },
};

/** Which rules a decision used: a saved version, the built-in default (0), or an unsaved draft (a dry run's −1). */
export function versionWords(version: number): string {
  if (version < 0) return 'the draft rules';
  if (version === 0) return 'the built-in default rules';
  return `rules version ${version}`;
}

/** One rule as looked at for a line: "Rule X applied." or "Rule X did not apply: <why>". */
export function ruleSentence(rule: TraceRule): string {
  if (rule.matched) return `${rule.name} applied.`;
  const why = rule.failed.join(' ');
  return why ? `${rule.name} did not apply: ${why}` : `${rule.name} did not apply.`;
}

/** What became of a candidate: taken (how many), or why not. */
export function candidateOutcome(candidate: TraceCandidate): string {
  if (candidate.taken > 0) return `Chosen: ${candidate.taken} unit${candidate.taken === 1 ? '' : 's'}`;
  if (candidate.rejected) return REJECTION_LABELS[candidate.rejected];
  return 'Not used';
}

/** In the order the rule tried them; those set aside before ranking come last. */
function ranked(candidates: readonly TraceCandidate[]): TraceCandidate[] {
  return [...candidates].sort((a, b) => (a.rank ?? Number.MAX_SAFE_INTEGER) - (b.rank ?? Number.MAX_SAFE_INTEGER));
}

/**
 * One line's routing: its outcome and explanation (left out with `detailsOnly`, where they are already shown),
 * the rules looked at, and every location with its stock, distance, fate and why.
 */
export function TraceLineView({
  line,
  title,
  detailsOnly = false,
}: {
  line: TraceLine;
  title?: string;
  detailsOnly?: boolean;
}) {
  const badge = OUTCOME_BADGES[line.outcome];
  const label = title ?? `${line.sku ?? 'No SKU'} × ${line.quantity}`;
  return (
    <Stack gap="xs" component="section" aria-label={`Routing of ${label}`}>
      {detailsOnly ? null : (
        <>
          <Group gap="xs">
            <Text fw={600} size="sm">
              {label}
            </Text>
            <Badge size="sm" variant="light" color={badge.color}>
              {badge.label}
            </Badge>
            {line.ruleName ? (
              <Text size="xs" c="dimmed">
                by rule {line.ruleName}
              </Text>
            ) : null}
          </Group>
          <Text size="sm">{line.explanation}</Text>
        </>
      )}
      {line.rules.length > 0 ? (
        <List size="sm" spacing={2} aria-label={`Rules for ${label}`}>
          {line.rules.map((rule) => (
            <List.Item key={rule.ruleId} c={rule.matched ? undefined : 'dimmed'}>
              {ruleSentence(rule)}
            </List.Item>
          ))}
        </List>
      ) : null}
      {line.candidates.length > 0 ? (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label={`Locations for ${label}`} verticalSpacing={4} fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Location</Table.Th>
                <Table.Th scope="col" style={{ textAlign: 'right' }}>
                  Available
                </Table.Th>
                <Table.Th scope="col" style={{ textAlign: 'right' }}>
                  Distance
                </Table.Th>
                <Table.Th scope="col">Outcome</Table.Th>
                <Table.Th scope="col">Why</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {ranked(line.candidates).map((candidate) => (
                <Table.Tr key={candidate.locationId} data-chosen={candidate.taken > 0 || undefined}>
                  <Table.Th scope="row" fw={candidate.taken > 0 ? 700 : 400}>
                    {candidate.name}
                  </Table.Th>
                  <Table.Td style={{ textAlign: 'right' }}>{NUMBER.format(candidate.available)}</Table.Td>
                  <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
                    {formatDistance(candidate.distanceKm)}
                  </Table.Td>
                  <Table.Td>
                    <Text
                      size="sm"
                      fw={candidate.taken > 0 ? 700 : 500}
                      c={candidate.taken > 0 ? 'teal' : candidate.rejected ? 'dimmed' : undefined}
                    >
                      {candidateOutcome(candidate)}
                    </Text>
                  </Table.Td>
                  <Table.Td>{candidate.detail}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {line.unplaced > 0 ? (
        <Text size="sm" c="var(--mantine-color-red-text)">
          {line.unplaced} unit{line.unplaced === 1 ? '' : 's'} could not be placed.
        </Text>
      ) : null}
    </Stack>
  );
}

/** A whole decision: the summary, where the order goes, then each line with its rules and locations. */
export function TraceView({ trace }: { trace: DecisionTrace }) {
  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Text size="sm">{trace.summary}</Text>
        <Text size="xs" c="dimmed">
          {trace.destination.note} · {trace.shipments} shipment{trace.shipments === 1 ? '' : 's'} · by{' '}
          {versionWords(trace.ruleSetVersion)}
        </Text>
      </Stack>
      {trace.lines.map((line) => (
        <TraceLineView key={line.lineId} line={line} />
      ))}
    </Stack>
  );
}
