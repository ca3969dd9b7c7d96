import { Anchor, Skeleton, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { useState } from 'react';
import { Pager } from '../../../../components/pager.tsx';
import { QueryError } from '../../../../components/query-error.tsx';
import { formatDateTime } from '../../../../lib/format.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { AccountStatusBadge } from '../-components/account-status-badge.tsx';

const PAGE_SIZE = 25;
/** SPEC §2: text inputs are debounced by 500 ms. */
const SEARCH_DEBOUNCE_MS = 500;

export const Route = createFileRoute('/_app/admin/accounts/')({
  component: AdminAccountsPage,
});

function AdminAccountsPage() {
  const trpc = useTRPC();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [page, setPage] = useState({ search: '', offset: 0 });
  // A new search starts at its first page.
  const offset = page.search === debounced ? page.offset : 0;
  const accounts = useQuery({
    ...trpc.admin.accounts.list.queryOptions({ limit: PAGE_SIZE, offset, ...(debounced ? { search: debounced } : {}) }),
    placeholderData: keepPreviousData,
  });

  return (
    <Stack gap="lg" maw={1100}>
      <Title order={1}>Accounts</Title>
      <TextInput
        type="search"
        label="Search accounts"
        placeholder="Business name or e-mail address"
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        maw={420}
      />
      {accounts.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading accounts">
          {[0, 1, 2, 3].map((row) => (
            <Skeleton key={row} height={28} />
          ))}
        </Stack>
      ) : accounts.isError ? (
        <QueryError
          title="Could not load the accounts"
          error={accounts.error}
          onRetry={accounts.refetch}
          retrying={accounts.isFetching}
        />
      ) : accounts.data.results.length === 0 ? (
        <Text c="dimmed">{debounced ? `No account matches “${debounced}”.` : 'There are no accounts yet.'}</Text>
      ) : (
        <Stack gap="sm">
          <Table.ScrollContainer minWidth={720}>
            <Table striped highlightOnHover aria-label="Accounts" aria-busy={accounts.isFetching}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Business</Table.Th>
                  <Table.Th scope="col">Status</Table.Th>
                  <Table.Th scope="col">Users</Table.Th>
                  <Table.Th scope="col">Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {accounts.data.results.map((account) => (
                  <Table.Tr key={account.id}>
                    <Table.Td>
                      <Anchor
                        renderRoot={(props) => (
                          <Link {...props} to="/admin/accounts/$accountId" params={{ accountId: account.id }} />
                        )}
                      >
                        {account.business}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <AccountStatusBadge status={account.status} />
                    </Table.Td>
                    <Table.Td>{account.users.map((user) => user.email).join(', ')}</Table.Td>
                    <Table.Td>
                      <time dateTime={account.createdAt}>{formatDateTime(account.createdAt)}</time>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Pager
            label="Accounts"
            total={accounts.data.total}
            limit={PAGE_SIZE}
            offset={offset}
            onChange={(next) => setPage({ search: debounced, offset: next })}
            disabled={accounts.isFetching}
          />
        </Stack>
      )}
    </Stack>
  );
}
