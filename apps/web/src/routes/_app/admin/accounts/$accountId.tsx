import { Alert, Anchor, Badge, Button, Group, Skeleton, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { ActAsInput, type AdminAccount } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { ACCOUNT_STATUS } from '../../../../lib/account-status.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useActing } from '../../../../lib/use-acting.ts';
import { useZodForm } from '../../../../lib/use-zod-form.ts';
import { AccountStatusBadge } from '../-components/account-status-badge.tsx';

const ActAsForm = ActAsInput.pick({ reason: true });

export const Route = createFileRoute('/_app/admin/accounts/$accountId')({
  component: AdminAccountPage,
});

function AdminAccountPage() {
  const trpc = useTRPC();
  const { accountId } = Route.useParams();
  const account = useQuery(trpc.admin.accounts.get.queryOptions({ id: accountId }));

  return (
    <Stack gap="lg" maw={960}>
      <Anchor component={Link} to="/admin/accounts" size="sm">
        ← All accounts
      </Anchor>
      {account.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the account">
          <Skeleton height={36} width={320} />
          <Skeleton height={160} />
        </Stack>
      ) : account.isError ? (
        <QueryError
          title="Could not load the account"
          error={account.error}
          onRetry={account.refetch}
          retrying={account.isFetching}
        />
      ) : (
        <AccountDetail account={account.data} />
      )}
    </Stack>
  );
}

function AccountDetail({ account }: { account: AdminAccount }) {
  return (
    <>
      <Group gap="sm" align="center">
        <Title order={1}>{account.business}</Title>
        <AccountStatusBadge status={account.status} />
      </Group>
      <Text size="sm" c="dimmed">
        {ACCOUNT_STATUS[account.status].explanation} Created {formatDateTime(account.createdAt)}.
      </Text>
      <SectionCard title="Users">
        {account.users.length === 0 ? (
          <Text size="sm" c="dimmed">
            This account has no users.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={560}>
            <Table aria-label="Users">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">E-mail address</Table.Th>
                  <Table.Th scope="col">User id</Table.Th>
                  <Table.Th scope="col">Role</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {account.users.map((user) => (
                  <Table.Tr key={user.id}>
                    <Table.Td>{`${user.firstname} ${user.lastname}`.trim()}</Table.Td>
                    <Table.Td>{user.email}</Table.Td>
                    <Table.Td>
                      <Text ff="monospace" size="sm">
                        {user.id}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {user.superUserRole === 'admin' ? (
                        <Badge color="grape">Super admin</Badge>
                      ) : user.authorizationLevel === 'superuser' ? (
                        <Badge color="indigo">Superuser</Badge>
                      ) : (
                        <Badge color="gray" variant="light">
                          User
                        </Badge>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </SectionCard>
      <ActAsSection account={account} />
    </>
  );
}

function ActAsSection({ account }: { account: AdminAccount }) {
  const { actAs } = useActing();
  const form = useZodForm(ActAsForm, { reason: '' });
  return (
    <SectionCard
      title="Act as this account"
      description="Work inside this account as its users see it, for an hour at most. The account's activity log shows the merchant that you did, and why."
    >
      <form
        noValidate
        aria-label="Act as this account"
        onSubmit={form.onSubmit(({ reason }) => actAs.mutate({ accountId: account.id, reason }))}
      >
        <Stack gap="md">
          {actAs.isError ? (
            <Alert color="red" variant="light" title="Could not act as this account" role="alert">
              {errorMessage(actAs.error)}
            </Alert>
          ) : null}
          <Textarea
            label="Reason"
            description="Shown to the merchant, e.g. “Support ticket 1234: stock not syncing”."
            rows={3}
            required
            {...form.inputProps('reason')}
            onChange={(event) => form.setValue('reason', event.currentTarget.value)}
          />
          <Group>
            <Button type="submit" color="orange" loading={actAs.isPending}>
              Act as this account
            </Button>
          </Group>
        </Stack>
      </form>
    </SectionCard>
  );
}
