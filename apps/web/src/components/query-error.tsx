import { Alert, Button, Stack, Text } from '@mantine/core';
import { errorMessage } from '../lib/errors.ts';

export interface QueryErrorProps {
  title: string;
  error: unknown;
  onRetry: () => unknown;
  retrying?: boolean;
}

/** A failed load: what went wrong and a way to try again. */
export function QueryError({ title, error, onRetry, retrying = false }: QueryErrorProps) {
  return (
    <Alert color="red" variant="light" title={title} role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{errorMessage(error)}</Text>
        <Button size="xs" variant="default" onClick={() => void onRetry()} loading={retrying}>
          Try again
        </Button>
      </Stack>
    </Alert>
  );
}
