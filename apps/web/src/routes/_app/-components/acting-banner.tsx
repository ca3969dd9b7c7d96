import { Button, Group, Paper, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useAuth } from '../../../lib/auth.ts';
import { basicDataOptions } from '../../../lib/basic-data.ts';
import { useTRPC } from '../../../lib/trpc.ts';
import { useActing } from '../../../lib/use-acting.ts';

/** While a superuser acts as an account, every screen says so, with the way back. */
export function ActingBanner() {
  const trpc = useTRPC();
  const auth = useAuth();
  const basic = useQuery(basicDataOptions(trpc));
  const { acting, stop, stopping } = useActing();
  if (!acting) return null;
  const business = basic.data?.account.business ?? auth.account?.business ?? 'another account';

  return (
    <Paper
      role="region"
      aria-label="Acting as another account"
      withBorder
      radius="md"
      p="sm"
      mb="md"
      bg="var(--mantine-color-yellow-light)"
      style={{ borderColor: 'var(--mantine-color-yellow-outline)' }}
    >
      <Group justify="space-between" gap="sm">
        <Text size="sm" fw={500}>
          Acting as {business} — everything you do here is recorded in its activity log.
        </Text>
        <Button size="xs" color="yellow" variant="filled" loading={stopping} onClick={() => void stop()}>
          Stop acting
        </Button>
      </Group>
    </Paper>
  );
}
