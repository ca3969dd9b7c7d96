import { Button, Group, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Navigate } from '@tanstack/react-router';
import { useState } from 'react';
import { z } from 'zod';
import { QueryError } from '../../components/query-error.tsx';
import { useAuth } from '../../lib/auth.ts';
import { useTRPC } from '../../lib/trpc.ts';
import { ActiveOutcome, NotPaidOutcome, OutcomeCard, SignInToContinue } from './-components/outcome.tsx';
import { canEnterApp } from './-components/status.ts';

// The payment page comes back with the id of its checkout session.
const SuccessSearch = z.object({ session_id: z.string().max(300).optional().catch(undefined) });

export const Route = createFileRoute('/subscription/success')({
  validateSearch: SuccessSearch,
  component: SuccessPage,
});

/** A paid checkout whose subscription is not recorded yet is asked about again this often, this many times. */
const CONFIRM_POLL_MS = 2000;
const CONFIRM_POLL_TRIES = 15;

function SuccessPage() {
  const auth = useAuth();
  if (!auth.token) return <SignInToContinue />;
  return <CheckoutOutcome />;
}

function CheckoutOutcome() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { session_id: sessionId } = Route.useSearch();
  // The session it came back from is the one to look up (the server finds its latest otherwise).
  const options = trpc.billing.getSubscriptionStatus.queryOptions(sessionId ? { sessionId } : undefined);
  const fetches = () => queryClient.getQueryState(options.queryKey)?.dataUpdateCount ?? 0;
  // Fetches counted from here on; "Check again" moves it up to start a new round.
  const [baseline, setBaseline] = useState(0);
  const status = useQuery({
    ...options,
    // Always read afresh: the outcome is what the provider says now, not what was cached before paying.
    staleTime: 0,
    refetchOnMount: 'always',
    refetchInterval: (query) => {
      const data = query.state.data;
      const confirming = data?.checkout?.status === 'complete' && !canEnterApp(data);
      if (!confirming || data.accountStatus === 'awaiting_payment') return false;
      return query.state.dataUpdateCount - baseline > CONFIRM_POLL_TRIES ? false : CONFIRM_POLL_MS;
    },
  });

  // Anything cached is from before the payment page; wait for the answer of now.
  if (status.isPending || (!status.isFetchedAfterMount && status.isFetching))
    return <OutcomeCard title="Checking your payment" busy="Checking your payment" />;
  if (status.isError) {
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
  if (data.accountStatus === 'awaiting_payment') return <Navigate to="/subscription/awaiting-payment" replace />;
  if (data.checkout?.status === 'complete') {
    // Paid at the provider, but the subscription is not recorded yet.
    const gaveUp = fetches() - baseline > CONFIRM_POLL_TRIES;
    return (
      <OutcomeCard title="Confirming your payment" busy={gaveUp ? undefined : 'Confirming your payment'}>
        <Text>
          {gaveUp
            ? 'Your payment went through, but confirming your subscription is taking longer than usual.'
            : 'Your payment went through. We are setting up your subscription…'}
        </Text>
        {gaveUp ? (
          <Group>
            <Button
              loading={status.isFetching}
              onClick={() => {
                setBaseline(fetches());
                void status.refetch();
              }}
            >
              Check again
            </Button>
          </Group>
        ) : null}
      </OutcomeCard>
    );
  }
  return <NotPaidOutcome status={data} />;
}
