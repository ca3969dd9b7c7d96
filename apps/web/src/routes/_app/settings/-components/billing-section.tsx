import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Radio,
  SegmentedControl,
  Skeleton,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import type { BillingInterval, BillingOverview, Invoice, Plan, PlanLimitKey } from '@switchyard/contracts';
import { PLAN_LIMIT_LABELS } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import {
  formatDate,
  formatMoney,
  formatPlanPrice,
  INTERVAL_LABEL,
  LIMIT_KEYS,
} from '../../../subscription/-components/money.ts';
import { useOpenPortal } from '../../../subscription/-components/portal.ts';

type Subscription = NonNullable<BillingOverview['status']['subscription']>;
type SubscriptionState = Subscription['status'];

const SUBSCRIPTION_STATE: Record<SubscriptionState, { label: string; color: string }> = {
  incomplete: { label: 'Incomplete', color: 'orange' },
  incomplete_expired: { label: 'Expired', color: 'gray' },
  trialing: { label: 'Trial', color: 'blue' },
  active: { label: 'Active', color: 'teal' },
  past_due: { label: 'Past due', color: 'red' },
  unpaid: { label: 'Unpaid', color: 'red' },
  canceled: { label: 'Canceled', color: 'gray' },
  paused: { label: 'Paused', color: 'gray' },
};

const INVOICE_STATE: Record<Invoice['status'], { label: string; color: string }> = {
  draft: { label: 'Draft', color: 'gray' },
  open: { label: 'Open', color: 'orange' },
  paid: { label: 'Paid', color: 'teal' },
  uncollectible: { label: 'Uncollectible', color: 'red' },
  void: { label: 'Void', color: 'gray' },
};

/** Where the billing portal sends the merchant back to. */
const ACCOUNT_PATH = '/settings/account';

function useInvalidateBilling() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.billing.pathFilter()),
      // The account status (in the basic data) follows the subscription.
      queryClient.invalidateQueries({ queryKey: trpc.hydration.getBasicData.queryKey() }),
    ]);
}

export interface BillingSectionProps {
  /** Opens the plan change at once (settings/account?upgrade=true). */
  upgrade: boolean;
  onUpgradeClosed: () => void;
}

/** Settings → Account: plan, renewal, usage, payment method and invoices, with plan change, cancel and resume. */
export function BillingSection({ upgrade, onUpgradeClosed }: BillingSectionProps) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.billing.getOverview.queryOptions());

  if (overview.isPending) {
    return (
      <Stack gap="md" role="status" aria-label="Loading your subscription">
        <Skeleton height={160} />
        <Skeleton height={120} />
      </Stack>
    );
  }
  if (overview.isError) {
    return (
      <QueryError
        title="Could not load your subscription"
        error={overview.error}
        onRetry={overview.refetch}
        retrying={overview.isFetching}
      />
    );
  }
  const data = overview.data;
  return (
    <>
      <SubscriptionCard overview={data} upgrade={upgrade} onUpgradeClosed={onUpgradeClosed} />
      <PaymentMethodCard overview={data} />
      <InvoicesCard invoices={data.invoices} />
    </>
  );
}

function SubscriptionCard({
  overview,
  upgrade,
  onUpgradeClosed,
}: {
  overview: BillingOverview;
  upgrade: boolean;
  onUpgradeClosed: () => void;
}) {
  const subscription = overview.status.subscription;
  const plan = overview.plan;
  const [changing, setChanging] = useState(false);
  const [canceling, setCanceling] = useState(false);
  const live = subscription && !['canceled', 'incomplete_expired'].includes(subscription.status);

  if (!subscription || !live) {
    return (
      <SectionCard title="Plan">
        {upgrade ? (
          <Alert variant="light" color="blue" title="Choose a plan" role="status">
            Your account has no subscription yet. Choose a plan to unlock everything.
          </Alert>
        ) : null}
        <Text size="sm">
          {subscription
            ? `Your ${subscription.planName} subscription has ended.`
            : 'Your account has no subscription yet.'}
        </Text>
        <Group>
          <Button component={Link} to="/subscription/plans">
            Choose a plan
          </Button>
        </Group>
      </SectionCard>
    );
  }

  const state = SUBSCRIPTION_STATE[subscription.status];
  const dialogOpen = changing || upgrade;
  const closeDialog = () => {
    setChanging(false);
    if (upgrade) onUpgradeClosed();
  };

  return (
    <SectionCard
      title="Plan"
      actions={
        <Group gap="xs">
          <Button size="xs" onClick={() => setChanging(true)}>
            Change plan
          </Button>
          {subscription.cancelAtPeriodEnd ? null : (
            <Button size="xs" variant="default" onClick={() => setCanceling(true)}>
              Cancel subscription
            </Button>
          )}
        </Group>
      }
    >
      <Stack gap="xs">
        <Group gap="sm">
          <Text fw={600} size="lg">
            {subscription.planName}
          </Text>
          <Badge color={state.color} variant="light">
            {state.label}
          </Badge>
        </Group>
        <Text size="sm">
          {plan ? formatPlanPrice(plan, subscription.interval) : `Billed ${subscription.interval}ly`}
        </Text>
        {subscription.cancelAtPeriodEnd ? null : (
          <Text size="sm">Renews on {formatDate(subscription.currentPeriodEnd)}.</Text>
        )}
      </Stack>
      {subscription.cancelAtPeriodEnd ? <ResumeNotice endsAt={subscription.currentPeriodEnd} /> : null}
      {subscription.status === 'past_due' ? (
        <Alert color="red" variant="light" title="Your last payment failed" role="alert">
          {overview.status.readOnly
            ? 'The grace period is over and your account is read-only. Update your payment method to make changes again.'
            : `Update your payment method by ${formatDate(subscription.graceEndsAt)} to keep full use of Switchyard.`}
        </Alert>
      ) : null}
      {plan ? <Usage plan={plan} usage={overview.usage} /> : null}
      <ChangePlanDialog opened={dialogOpen} onClose={closeDialog} subscription={subscription} current={plan} />
      <CancelDialog opened={canceling} onClose={() => setCanceling(false)} subscription={subscription} />
    </SectionCard>
  );
}

function ResumeNotice({ endsAt }: { endsAt: Date | null }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateBilling();
  const resume = useMutation(
    trpc.billing.resume.mutationOptions({
      onSuccess: () => {
        notify.success('Your subscription will renew as usual.');
        void invalidate();
      },
    }),
  );
  return (
    <Alert color="yellow" variant="light" title="Your subscription ends soon" role="status">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">
          It was canceled and ends on {formatDate(endsAt)}. Until then everything keeps working. Resume it to keep your
          plan.
        </Text>
        {resume.isError ? (
          <Text size="sm" c="red" role="alert">
            {errorMessage(resume.error)}
          </Text>
        ) : null}
        <Button size="xs" onClick={() => resume.mutate()} loading={resume.isPending}>
          Resume subscription
        </Button>
      </Stack>
    </Alert>
  );
}

const USAGE_KEYS: Record<PlanLimitKey, keyof BillingOverview['usage']> = {
  channels: 'channels',
  locations: 'locations',
  ordersPerMonth: 'ordersThisMonth',
  users: 'users',
};

const NUMBER = new Intl.NumberFormat();

function Usage({ plan, usage }: { plan: Plan; usage: BillingOverview['usage'] }) {
  return (
    <Table aria-label="Usage" withRowBorders={false} verticalSpacing={4} maw={420}>
      <Table.Tbody>
        {LIMIT_KEYS.map((key) => {
          const limit = plan.limits[key];
          const used = usage[USAGE_KEYS[key]];
          const full = limit !== null && used >= limit;
          return (
            <Table.Tr key={key}>
              <Table.Th scope="row" fw={400}>
                {PLAN_LIMIT_LABELS[key].many.charAt(0).toUpperCase() + PLAN_LIMIT_LABELS[key].many.slice(1)}
              </Table.Th>
              <Table.Td c={full ? 'red' : undefined} fw={full ? 600 : undefined}>
                {NUMBER.format(used)} of {limit === null ? 'unlimited' : NUMBER.format(limit)}
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

function ChangePlanDialog({
  opened,
  onClose,
  subscription,
  current,
}: {
  opened: boolean;
  onClose: () => void;
  subscription: Subscription;
  current: Plan | null;
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidateBilling();
  const plans = useQuery({ ...trpc.plans.listPlans.queryOptions(), enabled: opened });
  const [planId, setPlanId] = useState<string>();
  const [interval, setInterval] = useState<BillingInterval>(subscription.interval);
  const [confirming, setConfirming] = useState(false);
  const change = useMutation(
    trpc.billing.changePlan.mutationOptions({
      onSuccess: (status) => {
        notify.success(`Your plan is now ${status.subscription?.planName ?? 'changed'}.`);
        void invalidate();
        close();
      },
    }),
  );

  function close() {
    setPlanId(undefined);
    setInterval(subscription.interval);
    setConfirming(false);
    change.reset();
    onClose();
  }

  const choices = (plans.data ?? []).filter((plan) => plan.active);
  const chosen = choices.find((plan) => plan.id === planId);
  const unchanged = planId === subscription.planId && interval === subscription.interval;

  return (
    <Modal opened={opened} onClose={close} title={confirming ? 'Confirm the plan change' : 'Change plan'} size="lg">
      {confirming && chosen ? (
        <Stack gap="md">
          <Text>
            From <strong>{subscription.planName}</strong>
            {current ? ` (${formatPlanPrice(current, subscription.interval)})` : ''} to <strong>{chosen.name}</strong> (
            {formatPlanPrice(chosen, interval)}).
          </Text>
          <Text size="sm" c="dimmed">
            The change applies now and the rest of the current period is prorated: the difference is invoiced and
            charged to your payment method right away, and a move to a cheaper plan leaves a credit for your next
            invoices.
          </Text>
          {change.isError ? (
            <Alert color="red" variant="light" title="Could not change the plan" role="alert">
              {errorMessage(change.error)}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)} disabled={change.isPending}>
              Back
            </Button>
            <Button loading={change.isPending} onClick={() => change.mutate({ planId: chosen.id, interval })}>
              Change to {chosen.name}
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap="md">
          <SegmentedControl
            aria-label="Billing period"
            data={(['month', 'year'] as const).map((value) => ({ value, label: INTERVAL_LABEL[value].adverb }))}
            value={interval}
            onChange={(value) => setInterval(value === 'year' ? 'year' : 'month')}
            style={{ alignSelf: 'flex-start' }}
          />
          {plans.isPending ? (
            <Stack gap="xs" role="status" aria-label="Loading the plans">
              <Skeleton height={56} />
              <Skeleton height={56} />
            </Stack>
          ) : plans.isError ? (
            <QueryError
              title="Could not load the plans"
              error={plans.error}
              onRetry={plans.refetch}
              retrying={plans.isFetching}
            />
          ) : (
            <Radio.Group label="Plan" value={planId ?? null} onChange={setPlanId}>
              <Stack gap="xs" mt="xs">
                {choices.map((plan) => (
                  <Radio.Card key={plan.id} value={plan.id} p="sm" radius="md" aria-label={plan.name}>
                    <Group wrap="nowrap" align="flex-start">
                      <Radio.Indicator />
                      <Stack gap={2}>
                        <Group gap="xs">
                          <Text fw={600}>{plan.name}</Text>
                          {plan.id === subscription.planId ? (
                            <Badge size="sm" variant="light" color="teal">
                              Current plan
                            </Badge>
                          ) : null}
                        </Group>
                        <Text size="sm">{formatPlanPrice(plan, interval)}</Text>
                        <Text size="xs" c="dimmed">
                          {LIMIT_KEYS.map((key) => limitText(key, plan)).join(' · ')}
                        </Text>
                      </Stack>
                    </Group>
                  </Radio.Card>
                ))}
              </Stack>
            </Radio.Group>
          )}
          {unchanged ? (
            <Text size="sm" c="dimmed">
              This is your current plan. Choose another plan or billing period.
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Keep my plan
            </Button>
            <Button disabled={!chosen || unchanged} onClick={() => setConfirming(true)}>
              Review the change
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function limitText(key: PlanLimitKey, plan: Plan): string {
  const value = plan.limits[key];
  const label = PLAN_LIMIT_LABELS[key];
  if (value === null) return `unlimited ${label.many}`;
  return `${NUMBER.format(value)} ${value === 1 ? label.one : label.many}`;
}

function CancelDialog({
  opened,
  onClose,
  subscription,
}: {
  opened: boolean;
  onClose: () => void;
  subscription: Subscription;
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidateBilling();
  const cancel = useMutation(
    trpc.billing.cancel.mutationOptions({
      onSuccess: () => {
        notify.success(`Your subscription ends on ${formatDate(subscription.currentPeriodEnd)}.`);
        void invalidate();
        close();
      },
    }),
  );
  function close() {
    cancel.reset();
    onClose();
  }
  return (
    <Modal opened={opened} onClose={close} title="Cancel your subscription?">
      <Stack gap="md">
        <Text>
          Your {subscription.planName} subscription ends on {formatDate(subscription.currentPeriodEnd)}, at the end of
          the period you have paid for. Until then everything keeps working, and you can resume it at any time before
          that date. Nothing more is charged.
        </Text>
        {cancel.isError ? (
          <Alert color="red" variant="light" title="Could not cancel the subscription" role="alert">
            {errorMessage(cancel.error)}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={close} disabled={cancel.isPending}>
            Keep my subscription
          </Button>
          <Button color="red" loading={cancel.isPending} onClick={() => cancel.mutate()}>
            Cancel at period end
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function PaymentMethodCard({ overview }: { overview: BillingOverview }) {
  const portal = useOpenPortal(ACCOUNT_PATH);
  const method = overview.paymentMethod;
  if (!overview.status.subscription && !method) return null;
  return (
    <SectionCard
      title="Payment method"
      actions={
        <Button size="xs" variant="default" onClick={portal.open} loading={portal.pending}>
          Update
        </Button>
      }
    >
      {method ? (
        <Text size="sm">
          {brandName(method.brand)} ending in {method.last4}, expires {String(method.expMonth).padStart(2, '0')}/
          {method.expYear}
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          No payment method on file.
        </Text>
      )}
      {portal.error ? (
        <Alert color="red" variant="light" title="Could not open the billing portal" role="alert">
          {errorMessage(portal.error)}
        </Alert>
      ) : null}
    </SectionCard>
  );
}

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
};

function brandName(brand: string): string {
  return BRANDS[brand.toLowerCase()] ?? brand.charAt(0).toUpperCase() + brand.slice(1);
}

function InvoicesCard({ invoices }: { invoices: Invoice[] }) {
  return (
    <SectionCard title="Invoices">
      {invoices.length === 0 ? (
        <Text size="sm" c="dimmed">
          No invoices yet.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label="Invoices" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Invoice</Table.Th>
                <Table.Th scope="col">Date</Table.Th>
                <Table.Th scope="col">Period</Table.Th>
                <Table.Th scope="col" ta="right">
                  Amount
                </Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Documents</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {invoices.map((invoice) => {
                const state = INVOICE_STATE[invoice.status];
                const label = invoice.number ?? 'Draft';
                return (
                  <Table.Tr key={invoice.id}>
                    <Table.Td>{label}</Table.Td>
                    <Table.Td>{formatDate(invoice.createdAt)}</Table.Td>
                    <Table.Td>
                      {invoice.periodStart && invoice.periodEnd
                        ? `${formatDate(invoice.periodStart)} – ${formatDate(invoice.periodEnd)}`
                        : '—'}
                    </Table.Td>
                    <Table.Td ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
                      {formatMoney(
                        invoice.status === 'paid' ? invoice.amountPaid : invoice.amountDue,
                        invoice.currency,
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge color={state.color} variant="light">
                        {state.label}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Group gap="sm" wrap="nowrap">
                        {invoice.hostedInvoiceUrl ? (
                          <Anchor
                            href={invoice.hostedInvoiceUrl}
                            target="_blank"
                            rel="noopener noreferrer"
                            size="sm"
                            aria-label={`View invoice ${label}`}
                          >
                            View
                          </Anchor>
                        ) : null}
                        {invoice.pdfUrl ? (
                          <Anchor
                            href={invoice.pdfUrl}
                            target="_blank"
                            rel="noopener noreferrer"
                            size="sm"
                            aria-label={`Download invoice ${label} as PDF`}
                          >
                            PDF
                          </Anchor>
                        ) : null}
                        {!invoice.hostedInvoiceUrl && !invoice.pdfUrl ? '—' : null}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </SectionCard>
  );
}
