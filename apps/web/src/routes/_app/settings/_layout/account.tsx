import { Badge, Group, Skeleton, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { z } from 'zod';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { ACCOUNT_STATUS } from '../../../../lib/account-status.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { AccountDetailsForm } from '../-components/account-form.tsx';
import { AuditLog } from '../-components/audit-log.tsx';
import { BillingSection } from '../-components/billing-section.tsx';
import { StockSettingsForm, savedLowStockThreshold } from '../-components/stock-settings-form.tsx';

// SPEC §2: optional boolean `upgrade`: opens the plan change.
const AccountSearch = z.object({ upgrade: z.boolean().optional().catch(undefined) });

export const Route = createFileRoute('/_app/settings/_layout/account')({
  validateSearch: AccountSearch,
  component: AccountPage,
});

function AccountPage() {
  const trpc = useTRPC();
  const { upgrade = false } = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const catalogs = useQuery(trpc.account.catalogs.queryOptions());

  return (
    <Stack gap="lg">
      {catalogs.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading your account">
          <Skeleton height={90} />
          <Skeleton height={320} />
        </Stack>
      ) : catalogs.isError ? (
        <QueryError
          title="Could not load your account"
          error={catalogs.error}
          onRetry={catalogs.refetch}
          retrying={catalogs.isFetching}
        />
      ) : (
        <>
          <AccountStatusCard status={catalogs.data.account.status} />
          <AccountDetailsForm key={JSON.stringify(catalogs.data.account)} account={catalogs.data.account} />
          <StockSettingsForm
            key={savedLowStockThreshold(catalogs.data.accountSettings)}
            lowStockThreshold={savedLowStockThreshold(catalogs.data.accountSettings)}
          />
        </>
      )}
      <BillingSection
        upgrade={upgrade}
        onUpgradeClosed={() => void navigate({ search: (prev) => ({ ...prev, upgrade: undefined }), replace: true })}
      />
      <AuditLog />
    </Stack>
  );
}

function AccountStatusCard({ status }: { status: keyof typeof ACCOUNT_STATUS }) {
  const info = ACCOUNT_STATUS[status];
  return (
    <SectionCard title="Account status">
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <Badge color={info.color} variant="light" style={{ flexShrink: 0 }}>
          {info.label}
        </Badge>
        <Text size="sm">{info.explanation}</Text>
      </Group>
    </SectionCard>
  );
}
