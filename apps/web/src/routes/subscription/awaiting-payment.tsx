import { Button, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { QueryError } from '../../components/query-error.tsx';
import { useAuth } from '../../lib/auth.ts';
import { errorMessage } from '../../lib/errors.ts';
import { useTRPC } from '../../lib/trpc.ts';
import { ActiveOutcome, NotPaidOutcome, OutcomeCard, SignInToContinue } from './-components/outcome.tsx';
import { canEnterApp, STATUS_POLL_MS } from './-components/status.ts';

// SPEC §2 setup route: shown while a payment (a bank debit, say) has not settled yet.
export const Route = createFileRoute('/subscription/awaiting-payment')({
  component: AwaitingPaymentPage,
});

const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

function AwaitingPaymentPage() {
  const auth = useAuth();
  if (!auth.token) return <SignInToContinue />;
  return <AwaitingPayment />;
}

function AwaitingPayment() {
  const trpc = useTRPC();
  const status = useQuery({
    ...trpc.billing.getSubscriptionStatus.queryOptions(),
    staleTime: 0,
    refetchOnMount: 'always',
    // Asks again every few seconds while the payment is on its way, also in a background tab.
    refetchInterval: (query) =>
      query.state.data === undefined || query.state.data.accountStatus === 'awaiting_payment' ? STATUS_POLL_MS : false,
    refetchIntervalInBackground: true,
  });

  if (status.isPending || (!status.isFetchedAfterMount && status.isFetching)) {
    return <OutcomeCard title="Checking your payment" busy="Checking your payment" />;
  }
  if (status.isError && !status.data) {
    return (
      <OutcomeCard title="Checking your payment">
        <QueryError
          title="Could not check your payment"
          error={status.error}
          onRetry={status.refetch}
          retrying={status.isFetching}
        />
      </OutcomeCard>
    );
  }

  const data = status.data;
  if (canEnterApp(data)) return <ActiveOutcome status={data} />;
  if (data.accountStatus !== 'awaiting_payment') return <NotPaidOutcome status={data} />;

  const plan = data.subscription?.planName;
  return (
    <OutcomeCard title="Waiting for your bank" busy="Waiting for your bank to confirm the payment">
      <Stack gap="sm">
        <Text>
          {plan ? `Your payment for ${plan} is on its way.` : 'Your payment is on its way.'} Some payment methods, such
          as bank debits, take a few days to settle. This page moves on by itself as soon as your bank confirms it.
        </Text>
        <Text size="sm" c="dimmed">
          You can close this page and come back at any time; nothing more is needed from you.
        </Text>
        {status.isError ? (
          <Text size="sm" c="red" role="alert">
            Could not check the payment just now ({errorMessage(status.error)}). Trying again…
          </Text>
        ) : (
          <Text size="sm" c="dimmed" aria-live="polite">
            Last checked at {TIME.format(status.dataUpdatedAt)}.
          </Text>
        )}
      </Stack>
      <Group>
        <Button variant="default" component={Link} to="/subscription/plans">
          See the plans
        </Button>
      </Group>
    </OutcomeCard>
  );
}
