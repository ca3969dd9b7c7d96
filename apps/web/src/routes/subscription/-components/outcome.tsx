import { Alert, Button, Center, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import type { SubscriptionStatus } from '@switchyard/contracts';
import { Link, useLocation } from '@tanstack/react-router';
import { type ReactNode, useEffect } from 'react';
import { useEnterApp } from './enter-app.ts';

/** How long the "you're all set" message stays before the app opens. */
export const ENTER_APP_DELAY_MS = 2500;

/** A centred card for one outcome of the checkout. */
export function OutcomeCard({ title, children, busy }: { title: string; children?: ReactNode; busy?: string }) {
  return (
    <Center>
      <Paper withBorder shadow="sm" radius="md" p="xl" maw={560} w="100%">
        <Stack gap="md">
          <Group gap="sm" wrap="nowrap">
            {busy ? <Loader size="sm" role="status" aria-label={busy} /> : null}
            <Title order={1} size="h2">
              {title}
            </Title>
          </Group>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}

/** The subscription is active: say so, then go into the app by itself (or at once with the button). */
export function ActiveOutcome({ status }: { status: SubscriptionStatus }) {
  const enterApp = useEnterApp();
  useEffect(() => {
    const timer = setTimeout(() => void enterApp(), ENTER_APP_DELAY_MS);
    return () => clearTimeout(timer);
  }, [enterApp]);
  const plan = status.subscription?.planName;
  return (
    <OutcomeCard title="You're all set">
      <Text role="status">
        {plan ? `Your ${plan} subscription is active.` : 'Your subscription is active.'} Taking you to your dashboard…
      </Text>
      <Group>
        <Button onClick={() => void enterApp(false)}>Go to the dashboard</Button>
      </Group>
    </OutcomeCard>
  );
}

/** The payment did not go through: nothing was charged; the provider's reason when there is one. */
export function NotPaidOutcome({ status }: { status: SubscriptionStatus }) {
  return (
    <OutcomeCard title="Payment not completed">
      <Text>Your payment was not completed and nothing was charged.</Text>
      {status.lastPaymentError ? (
        <Alert color="red" variant="light" title="The payment failed" role="alert">
          {status.lastPaymentError}
        </Alert>
      ) : null}
      <Group>
        <Button component={Link} to="/subscription/plans">
          Back to the plans
        </Button>
      </Group>
    </OutcomeCard>
  );
}

/** Signed out: the status belongs to an account, so sign in first and come back here. */
export function SignInToContinue() {
  const href = useLocation({ select: (location) => location.href });
  return (
    <OutcomeCard title="Sign in to continue">
      <Text>Sign in to see how your subscription stands.</Text>
      <Group>
        <Button renderRoot={(props) => <Link {...props} to="/login" search={{ redirect: href }} />}>Sign in</Button>
      </Group>
    </OutcomeCard>
  );
}
