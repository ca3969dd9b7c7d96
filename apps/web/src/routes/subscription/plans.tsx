import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import type { BillingInterval, Plan } from '@switchyard/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { z } from 'zod';
import { QueryError } from '../../components/query-error.tsx';
import { useAuth } from '../../lib/auth.ts';
import { browserLocation } from '../../lib/browser-location.ts';
import { errorMessage } from '../../lib/errors.ts';
import { useTRPC } from '../../lib/trpc.ts';
import { INTERVAL_LABEL } from './-components/money.ts';
import { PlanCard } from './-components/plan-card.tsx';
import { hasLiveSubscription } from './-components/status.ts';

// SPEC §2: optional boolean `all`; checkout comes back with checkout=canceled when the payment page is left.
const PlansSearch = z.object({
  all: z.boolean().optional().catch(undefined),
  checkout: z.literal('canceled').optional().catch(undefined),
});

export const Route = createFileRoute('/subscription/plans')({
  validateSearch: PlansSearch,
  component: PlansPage,
});

const INTERVAL_OPTIONS = (['month', 'year'] as const).map((value) => ({
  value,
  label: INTERVAL_LABEL[value].adverb,
}));

function PlansPage() {
  const trpc = useTRPC();
  const auth = useAuth();
  const signedIn = Boolean(auth.token);
  const { all = false, checkout } = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const [interval, setInterval] = useState<BillingInterval>('month');
  const [leaving, setLeaving] = useState<string>();

  const plans = useQuery(trpc.plans.listPlans.queryOptions(all ? { all: true } : undefined));
  const status = useQuery({ ...trpc.billing.getSubscriptionStatus.queryOptions(), enabled: signedIn });
  const start = useMutation(
    trpc.billing.startCheckout.mutationOptions({
      onSuccess: ({ url }, input) => {
        // The button keeps spinning while the browser leaves for the payment page.
        setLeaving(input.planId);
        browserLocation.assign(url);
      },
    }),
  );

  const subscribed = hasLiveSubscription(status.data);
  const currentPlanId = subscribed ? status.data?.subscription?.planId : undefined;

  const action = (plan: Plan) => {
    if (!plan.active) {
      return (
        <Button fullWidth variant="default" disabled>
          No longer offered
        </Button>
      );
    }
    if (!signedIn) {
      return (
        <Button fullWidth component={Link} to="/register">
          Sign up
        </Button>
      );
    }
    if (subscribed) {
      return (
        <Button
          fullWidth
          variant={plan.id === currentPlanId ? 'default' : 'filled'}
          renderRoot={(props) => <Link {...props} to="/settings/account" search={{ upgrade: true }} />}
        >
          {plan.id === currentPlanId ? 'Manage your plan' : `Change to ${plan.name}`}
        </Button>
      );
    }
    const busy = (start.isPending && start.variables?.planId === plan.id) || leaving === plan.id;
    // A payment on its way (a bank debit) must settle or fail before another checkout.
    const paying = status.data?.accountStatus === 'awaiting_payment';
    return (
      <Button
        fullWidth
        loading={busy}
        disabled={status.isPending || paying || (Boolean(leaving) && !busy) || (start.isPending && !busy)}
        onClick={() => start.mutate({ planId: plan.id, interval })}
        aria-label={`Choose ${plan.name}, ${INTERVAL_LABEL[interval].adverb.toLowerCase()}`}
      >
        Choose {plan.name}
      </Button>
    );
  };

  return (
    <Stack gap="lg">
      <Stack gap={4}>
        <Title order={1}>Choose your plan</Title>
        <Text c="dimmed">
          {signedIn
            ? 'Pick the plan that fits your business. You pay on the next page and can change or cancel at any time.'
            : 'Every plan syncs your catalog, stock and orders across Shopify, BigCommerce and Square. Sign up to start.'}
        </Text>
      </Stack>

      {/* A checkout left unpaid; moot once the account subscribes (the link may be an old one). */}
      {checkout === 'canceled' && !subscribed ? (
        <Alert
          color="yellow"
          variant="light"
          title="Payment not completed"
          role="alert"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => void navigate({ search: (prev) => ({ ...prev, checkout: undefined }), replace: true })}
        >
          <Stack gap={4}>
            <Text size="sm">Your payment was not completed and nothing was charged. Choose a plan to try again.</Text>
            {status.data?.lastPaymentError ? (
              <Text size="sm">The last attempt failed: {status.data.lastPaymentError}</Text>
            ) : null}
          </Stack>
        </Alert>
      ) : null}

      {status.data?.accountStatus === 'awaiting_payment' ? (
        <Alert color="blue" variant="light" title="Your payment is on its way" role="status">
          <Group gap="sm" justify="space-between">
            <Text size="sm">We are waiting for your bank to confirm the payment for your plan.</Text>
            <Button size="xs" variant="default" component={Link} to="/subscription/awaiting-payment">
              See the payment
            </Button>
          </Group>
        </Alert>
      ) : null}

      {subscribed && status.data?.subscription ? (
        <Alert color="teal" variant="light" title={`You are on ${status.data.subscription.planName}`} role="status">
          <Group gap="sm" justify="space-between">
            <Text size="sm">Plan changes are made in your account settings and are prorated.</Text>
            <Button size="xs" variant="default" component={Link} to="/dashboard">
              Go to the dashboard
            </Button>
          </Group>
        </Alert>
      ) : null}

      {start.isError ? (
        <Alert color="red" variant="light" title="Could not start the checkout" role="alert">
          {errorMessage(start.error)}
        </Alert>
      ) : null}

      <SegmentedControl
        aria-label="Billing period"
        data={INTERVAL_OPTIONS}
        value={interval}
        onChange={(value) => setInterval(value === 'year' ? 'year' : 'month')}
        style={{ alignSelf: 'flex-start' }}
      />

      {plans.isPending ? (
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} role="status" aria-label="Loading the plans">
          {[0, 1, 2].map((key) => (
            <Skeleton key={key} height={380} radius="md" />
          ))}
        </SimpleGrid>
      ) : plans.isError ? (
        <QueryError
          title="Could not load the plans"
          error={plans.error}
          onRetry={plans.refetch}
          retrying={plans.isFetching}
        />
      ) : plans.data.length === 0 ? (
        <Text c="dimmed">No plans are offered right now. Please come back later or contact support.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, md: Math.min(3, plans.data.length) }}>
          {plans.data.map((plan) => (
            <PlanCard
              key={plan.id}
              plan={plan}
              interval={interval}
              badge={
                plan.id === currentPlanId ? (
                  <Badge variant="light" color="teal">
                    Current plan
                  </Badge>
                ) : !plan.public ? (
                  <Badge variant="light" color="gray">
                    Not listed
                  </Badge>
                ) : null
              }
              action={action(plan)}
            />
          ))}
        </SimpleGrid>
      )}

      {!signedIn ? (
        <Text size="sm" c="dimmed">
          Already have an account?{' '}
          <Anchor renderRoot={(props) => <Link {...props} to="/login" search={{ redirect: '/subscription/plans' }} />}>
            Sign in
          </Anchor>
        </Text>
      ) : null}
    </Stack>
  );
}
