import { Badge, Card, Group, List, Stack, Text, Title } from '@mantine/core';
import type { BillingInterval, Plan } from '@switchyard/contracts';
import { type ReactNode, useId } from 'react';
import { formatLimit, formatMoney, LIMIT_KEYS, yearlySaving } from './money.ts';

export interface PlanCardProps {
  plan: Plan;
  /** The interval the merchant is looking at: its price is shown large. */
  interval: BillingInterval;
  /** A badge next to the name ("Current plan", "Not listed"). */
  badge?: ReactNode;
  /** The card's button. */
  action?: ReactNode;
}

/** One plan: name, both prices, its limits and features. */
export function PlanCard({ plan, interval, badge, action }: PlanCardProps) {
  const titleId = useId();
  const saving = yearlySaving(plan);
  const other: BillingInterval = interval === 'month' ? 'year' : 'month';
  const price = (which: BillingInterval) =>
    formatMoney(which === 'month' ? plan.monthlyPrice : plan.yearlyPrice, plan.currency);

  return (
    <Card withBorder radius="md" padding="lg" component="article" aria-labelledby={titleId} h="100%">
      <Stack gap="md" h="100%">
        <Stack gap={4}>
          <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
            <Title order={2} size="h3" id={titleId}>
              {plan.name}
            </Title>
            {badge}
          </Group>
          {plan.description ? (
            <Text size="sm" c="dimmed">
              {plan.description}
            </Text>
          ) : null}
        </Stack>
        <Stack gap={2}>
          <Text fz={28} fw={700} lh={1.2}>
            {price(interval)}
            <Text span size="sm" c="dimmed" fw={400}>
              {' '}
              / {interval}
            </Text>
          </Text>
          <Group gap={6}>
            <Text size="sm" c="dimmed">
              or {price(other)} / {other}
            </Text>
            {saving > 0 ? (
              <Badge size="sm" variant="light" color="teal">
                Save {saving}% yearly
              </Badge>
            ) : null}
          </Group>
        </Stack>
        <List size="sm" spacing={4} aria-label={`${plan.name} limits`}>
          {LIMIT_KEYS.map((key) => (
            <List.Item key={key}>{formatLimit(key, plan.limits[key])}</List.Item>
          ))}
        </List>
        {plan.features.length > 0 ? (
          <List size="sm" spacing={4} aria-label={`${plan.name} features`} c="dimmed">
            {plan.features.map((feature) => (
              <List.Item key={feature}>{feature}</List.Item>
            ))}
          </List>
        ) : null}
        {action ? <div style={{ marginTop: 'auto' }}>{action}</div> : null}
      </Stack>
    </Card>
  );
}
