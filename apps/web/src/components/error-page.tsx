import { Anchor, Button, Code, Container, Group, Stack, Text, Title } from '@mantine/core';
import { MESSAGES } from '@switchyard/contracts';
import { type ErrorComponentProps, useMatch, useRouter } from '@tanstack/react-router';
import { errorMessage } from '../lib/errors.ts';
import { SUPPORT_EMAIL } from '../lib/support.ts';
import { RenderErrorFallback } from './render-error.tsx';

function supportHref(details: string): string {
  const params = new URLSearchParams({ subject: 'Switchyard error', body: `What happened:\n\nError: ${details}\n` });
  // mailto wants %20 for spaces; URLSearchParams writes +.
  return `mailto:${SUPPORT_EMAIL}?${params.toString().replaceAll('+', '%20')}`;
}

/** The generic failure page (SPEC §2): the message, the error's text and a way to reach support. */
export function ErrorPage({ error, reset }: Pick<ErrorComponentProps, 'error' | 'reset'>) {
  const details = errorMessage(error);
  return (
    <Container size="sm" py="xl">
      <Stack gap="md" role="alert">
        <Title order={1} size="h2">
          {MESSAGES.unexpected}
        </Title>
        <Code block>{details}</Code>
        <Text>
          If this keeps happening, contact support at <Anchor href={supportHref(details)}>{SUPPORT_EMAIL}</Anchor> and
          tell us what you were doing.
        </Text>
        <Group>
          <Button variant="default" onClick={reset}>
            Try again
          </Button>
        </Group>
      </Stack>
    </Container>
  );
}

// Chromium, Firefox and Safari word a failed dynamic import differently.
const CHUNK_LOAD_FAILURE =
  /dynamically imported module|Importing a module script failed|error loading dynamically imported module/i;

export function isChunkLoadError(error: unknown): boolean {
  return error instanceof Error && CHUNK_LOAD_FAILURE.test(error.message);
}

/**
 * The router's error component. A route whose data loaded but whose page threw while rendering gets the
 * render-error panel (SPEC §8); a route that failed to load gets the generic page, where "Try again"
 * also reruns the loaders, which a boundary reset alone would not. A screen whose code could not be
 * downloaded (a network failure, or a deploy that removed the old chunks) failed to load, too.
 */
export function RouteErrorPage({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  const loaderFailed = useMatch({ strict: false, select: (match) => match.status === 'error' });
  if (!loaderFailed && !isChunkLoadError(error)) {
    return (
      <Container size="md" py="md">
        <RenderErrorFallback error={error} />
      </Container>
    );
  }
  const retry = () => {
    reset();
    void router.invalidate();
  };
  return <ErrorPage error={error} reset={retry} />;
}
