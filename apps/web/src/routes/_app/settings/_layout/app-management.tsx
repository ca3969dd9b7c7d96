import { Anchor, Badge, Button, Group, Skeleton, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import type { ApiKey } from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';
import { Pager } from '../../../../components/pager.tsx';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { formatDateTime } from '../../../../lib/format.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { CreateApiKeyDialog, RenameApiKeyDialog, RevokeApiKeyDialog } from '../-components/api-key-dialogs.tsx';

const PAGE_SIZE = 25;
const API_DOCS = '/api/docs';

// SPEC §2: app-management loads the app list.
export const Route = createFileRoute('/_app/settings/_layout/app-management')({
  loader: ({ context }) =>
    context.queryClient.prefetchQuery(context.trpc.apps.list.queryOptions({ limit: PAGE_SIZE, offset: 0 })),
  component: AppManagementPage,
});

function AppManagementPage() {
  const trpc = useTRPC();
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<ApiKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const keys = useQuery({
    ...trpc.apps.list.queryOptions({ limit: PAGE_SIZE, offset }),
    placeholderData: keepPreviousData,
  });
  // A revoke can empty the last page; go back one.
  if (keys.data && keys.data.results.length === 0 && offset > 0 && !keys.isFetching) {
    setOffset(Math.max(0, offset - PAGE_SIZE));
  }

  return (
    <Stack gap="lg">
      <SectionCard
        title="API keys"
        description={
          <>
            Keys let your own programs and partners use the Switchyard REST API (v1 and v2) as your business. See the{' '}
            <Anchor href={API_DOCS} target="_blank" rel="noreferrer">
              API documentation
            </Anchor>
            .
          </>
        }
        actions={<Button onClick={() => setCreating(true)}>Create API key</Button>}
      >
        {keys.isPending ? (
          <Stack gap="xs" role="status" aria-label="Loading your API keys">
            {[0, 1, 2].map((row) => (
              <Skeleton key={row} height={28} />
            ))}
          </Stack>
        ) : keys.isError ? (
          <QueryError
            title="Could not load your API keys"
            error={keys.error}
            onRetry={keys.refetch}
            retrying={keys.isFetching}
          />
        ) : keys.data.total === 0 ? (
          <Stack gap="xs" align="flex-start">
            <Text fw={500}>No API keys yet</Text>
            <Text size="sm" c="dimmed">
              An API key lets a program outside Switchyard — your ERP, a warehouse scanner, a script — read and change
              your catalog, stock and orders through the public REST API v1 and v2. It is sent as a bearer token. Read
              how in the{' '}
              <Anchor href={API_DOCS} target="_blank" rel="noreferrer">
                API documentation
              </Anchor>
              .
            </Text>
            <Button variant="light" onClick={() => setCreating(true)}>
              Create your first API key
            </Button>
          </Stack>
        ) : (
          <Stack gap="sm">
            <Table.ScrollContainer minWidth={720}>
              <Table striped highlightOnHover aria-label="API keys">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Name</Table.Th>
                    <Table.Th scope="col">Key</Table.Th>
                    <Table.Th scope="col">Created</Table.Th>
                    <Table.Th scope="col">Last used</Table.Th>
                    <Table.Th scope="col">Status</Table.Th>
                    <Table.Th scope="col">
                      <VisuallyHidden>Actions</VisuallyHidden>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {keys.data.results.map((key) => (
                    <Table.Tr key={key.id}>
                      <Table.Td>{key.name}</Table.Td>
                      <Table.Td>
                        <Text ff="monospace" size="sm">
                          {key.prefix}…
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <time dateTime={key.createdAt}>{formatDateTime(key.createdAt)}</time>
                      </Table.Td>
                      <Table.Td>
                        {key.lastUsedAt ? (
                          <time dateTime={key.lastUsedAt}>{formatDateTime(key.lastUsedAt)}</time>
                        ) : (
                          'Never'
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Badge color="teal" variant="light">
                          Active
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs" justify="flex-end" wrap="nowrap">
                          <Button
                            size="xs"
                            variant="default"
                            aria-label={`Rename ${key.name}`}
                            onClick={() => setRenaming(key)}
                          >
                            Rename
                          </Button>
                          <Button
                            size="xs"
                            variant="light"
                            color="red"
                            aria-label={`Revoke ${key.name}`}
                            onClick={() => setRevoking(key)}
                          >
                            Revoke
                          </Button>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Pager
              label="API keys"
              total={keys.data.total}
              limit={PAGE_SIZE}
              offset={offset}
              onChange={setOffset}
              disabled={keys.isFetching}
            />
          </Stack>
        )}
      </SectionCard>
      <CreateApiKeyDialog opened={creating} onClose={() => setCreating(false)} />
      <RenameApiKeyDialog apiKey={renaming} onClose={() => setRenaming(undefined)} />
      <RevokeApiKeyDialog apiKey={revoking} onClose={() => setRevoking(undefined)} />
    </Stack>
  );
}
