import { Alert, Anchor, Button, Center, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { CHANNEL_LABELS, type ChannelType } from '@switchyard/contracts';
import { Link } from '@tanstack/react-router';
import { errorMessage } from '../../../../lib/errors.ts';
import { isPlanLimit } from '../../channels/-components/channel-api.ts';
import { UpgradeLink } from '../../channels/-components/upgrade-link.tsx';

interface StepQuery {
  isError: boolean;
  error: unknown;
  isFetching: boolean;
  refetch: () => unknown;
}

/** "Taking you to the provider…", or why it could not (the server's message), with a way to try again. */
export function AuthorizationStep({ provider, query }: { provider: ChannelType; query: StepQuery }) {
  const label = CHANNEL_LABELS[provider];
  return (
    <Center py="xl">
      <Paper withBorder radius="md" p="xl" maw={560} w="100%">
        {query.isError ? (
          <Stack gap="md">
            <Title order={1} size="h3">
              Could not connect {label}
            </Title>
            <Alert color="red" variant="light" role="alert">
              <Stack gap={4}>
                <Text size="sm">{errorMessage(query.error)}</Text>
                {isPlanLimit(query.error) ? <UpgradeLink /> : null}
              </Stack>
            </Alert>
            <Group>
              <Button onClick={() => void query.refetch()} loading={query.isFetching}>
                Try again
              </Button>
              <Anchor renderRoot={(props) => <Link {...props} to="/channels" />}>Back to channels</Anchor>
            </Group>
          </Stack>
        ) : (
          <Group gap="sm" wrap="nowrap">
            <Loader size="sm" aria-hidden />
            <Text role="status">Taking you to {label}…</Text>
          </Group>
        )}
      </Paper>
    </Center>
  );
}
