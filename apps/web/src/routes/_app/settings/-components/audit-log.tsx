import { Skeleton, Stack, Table, Text } from '@mantine/core';
import type { AuditEntry } from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Pager } from '../../../../components/pager.tsx';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { formatDateTime } from '../../../../lib/format.ts';
import { useTRPC } from '../../../../lib/trpc.ts';

const PAGE_SIZE = 25;

const ACTIONS: Record<string, string> = {
  'superuser.act_as': 'A superuser started working in this account',
  'superuser.act_as_end': 'A superuser stopped working in this account',
};

export function auditActionLabel(action: string): string {
  return ACTIONS[action] ?? action;
}

function detailText(detail: AuditEntry['detail']): string {
  if (typeof detail.reason === 'string') return `Reason: ${detail.reason}`;
  return Object.entries(detail)
    .filter(([key]) => key !== 'sessionId')
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

function who(actor: AuditEntry['actor']): string {
  const name = `${actor.firstname} ${actor.lastname}`.trim();
  return name ? `${name} (${actor.email})` : actor.email;
}

/** The account's audit log (audit.list): what was done in it, and by whom — superusers included. */
export function AuditLog() {
  const trpc = useTRPC();
  const [offset, setOffset] = useState(0);
  const audit = useQuery({
    ...trpc.audit.list.queryOptions({ limit: PAGE_SIZE, offset }),
    placeholderData: keepPreviousData,
  });

  return (
    <SectionCard
      title="Activity log"
      description="Changes made in this account, including every time a Switchyard superuser worked in it."
    >
      {audit.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading the activity log">
          {[0, 1, 2].map((row) => (
            <Skeleton key={row} height={28} />
          ))}
        </Stack>
      ) : audit.isError ? (
        <QueryError
          title="Could not load the activity log"
          error={audit.error}
          onRetry={audit.refetch}
          retrying={audit.isFetching}
        />
      ) : audit.data.results.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing has been recorded yet.
        </Text>
      ) : (
        <Stack gap="sm">
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover aria-label="Activity log">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">When</Table.Th>
                  <Table.Th scope="col">Who</Table.Th>
                  <Table.Th scope="col">Action</Table.Th>
                  <Table.Th scope="col">Detail</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {audit.data.results.map((entry) => (
                  <Table.Tr key={entry.id}>
                    <Table.Td>
                      <time dateTime={entry.createdAt}>{formatDateTime(entry.createdAt)}</time>
                    </Table.Td>
                    <Table.Td>{who(entry.actor)}</Table.Td>
                    <Table.Td>{auditActionLabel(entry.action)}</Table.Td>
                    <Table.Td>{detailText(entry.detail)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Pager
            label="Activity log"
            total={audit.data.total}
            limit={PAGE_SIZE}
            offset={offset}
            onChange={setOffset}
            disabled={audit.isFetching}
          />
        </Stack>
      )}
    </SectionCard>
  );
}
