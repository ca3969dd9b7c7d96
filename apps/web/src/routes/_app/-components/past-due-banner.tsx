import { Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useLocation } from '@tanstack/react-router';
import { basicDataOptions } from '../../../lib/basic-data.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { formatDate } from '../../subscription/-components/money.ts';
import { useOpenPortal } from '../../subscription/-components/portal.ts';

/**
 * A failed renewal (account past_due): every screen says until when the account keeps full use and offers
 * to update the payment method; once the grace period is over, that the account is read-only.
 */
export function PastDueBanner() {
  const trpc = useTRPC();
  const basic = useQuery(basicDataOptions(trpc));
  const pastDue = basic.data?.account.status === 'past_due';
  const status = useQuery({ ...trpc.billing.getSubscriptionStatus.queryOptions(), enabled: pastDue });
  const pathname = useLocation({ select: (location) => location.pathname });
  const portal = useOpenPortal(pathname);

  if (!pastDue) return null;
  const readOnly = status.data?.readOnly ?? false;
  const graceEndsAt = status.data?.subscription?.graceEndsAt ?? null;
  const reason = status.data?.lastPaymentError;

  return (
    <Paper
      role="region"
      aria-label={readOnly ? 'Your account is read-only' : 'Your payment failed'}
      withBorder
      radius="md"
      p="sm"
      mb="md"
      bg="var(--mantine-color-red-light)"
      style={{ borderColor: 'var(--mantine-color-red-outline)' }}
    >
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Stack gap={2} style={{ flex: '1 1 320px' }}>
          <Text size="sm" fw={600}>
            {readOnly ? 'Your account is read-only' : 'Your last payment failed'}
          </Text>
          <Text size="sm">
            {readOnly
              ? 'The grace period for the failed payment is over. You can still look at everything, but changes are paused until the payment goes through.'
              : graceEndsAt
                ? `Update your payment method by ${formatDate(graceEndsAt)} to keep full use of Switchyard. After that the account becomes read-only.`
                : 'Update your payment method to keep full use of Switchyard.'}
            {reason ? ` (${reason})` : ''}
          </Text>
          {portal.error ? (
            <Text size="sm" c="red" role="alert">
              Could not open the billing portal: {errorMessage(portal.error)}
            </Text>
          ) : null}
        </Stack>
        <Button size="xs" color="red" onClick={portal.open} loading={portal.pending}>
          Update payment method
        </Button>
      </Group>
    </Paper>
  );
}
