import { Accordion, Alert, Anchor, Badge, Button, Container, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { api } from '../../lib/api.ts';
import { errorMessage } from '../../lib/errors.ts';

interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  links: string[];
  createdAt: string;
}

interface Outbox {
  enabled: boolean;
  messages: OutboxMessage[];
}

export const Route = createFileRoute('/dev/mailbox')({
  component: MailboxPage,
});

const DISABLED: Outbox = { enabled: false, messages: [] };

/** The development outbox; a 404 means the server sends real e-mail (SMTP is configured). */
async function fetchOutbox(): Promise<Outbox> {
  try {
    return await api.frontend.get<Outbox>('dev/outbox');
  } catch (error) {
    if ((error as { response?: { status?: number } } | null)?.response?.status === 404) return DISABLED;
    throw error;
  }
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

function formatTime(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : timeFormat.format(date);
}

function MailboxPage() {
  const outbox = useQuery({
    queryKey: ['dev', 'outbox'],
    queryFn: fetchOutbox,
    staleTime: 0,
    // A development tool with a Refresh button: show a failure at once.
    retry: false,
  });

  return (
    <Container size="md" py="xl" component="main">
      <Stack gap="lg">
        <Group justify="space-between" align="flex-end">
          <Stack gap={4}>
            <Anchor component={Link} to="/login" size="sm">
              ← Back to sign in
            </Anchor>
            <Title order={1}>Development mailbox</Title>
            <Text c="dimmed">E-mails the server would have sent, newest first. Nothing here leaves your machine.</Text>
          </Stack>
          <Button variant="default" onClick={() => void outbox.refetch()} loading={outbox.isFetching}>
            Refresh
          </Button>
        </Group>
        <MailboxContent outbox={outbox} />
      </Stack>
    </Container>
  );
}

function MailboxContent({ outbox }: { outbox: ReturnType<typeof useQuery<Outbox>> }) {
  if (outbox.isPending) {
    return (
      <Group justify="center" py="xl">
        <Loader role="status" aria-label="Loading the mailbox" />
      </Group>
    );
  }
  if (outbox.isError) {
    return (
      <Alert color="red" variant="light" title="Could not load the mailbox" role="alert">
        {errorMessage(outbox.error)}
      </Alert>
    );
  }
  if (!outbox.data.enabled) {
    return (
      <Alert color="blue" variant="light" title="The development mailbox is off" role="status">
        This server is set up to send real e-mail, so messages are delivered to their recipients instead of being kept
        here.
      </Alert>
    );
  }
  if (outbox.data.messages.length === 0) {
    return (
      <Alert color="gray" variant="light" title="No messages yet" role="status">
        Register an account or ask for a password reset, and the e-mail shows up here.
      </Alert>
    );
  }
  return (
    <Accordion variant="separated" multiple aria-label="Messages">
      {outbox.data.messages.map((message) => (
        <Accordion.Item key={message.id} value={message.id}>
          <Accordion.Control>
            <Stack gap={2}>
              <Text fw={600}>{message.subject}</Text>
              <Group gap="xs">
                <Text size="sm" c="dimmed">
                  To {message.to}
                </Text>
                <Text size="sm" c="dimmed" component="time" dateTime={message.createdAt}>
                  {formatTime(message.createdAt)}
                </Text>
              </Group>
            </Stack>
          </Accordion.Control>
          <Accordion.Panel>
            <Stack gap="sm">
              {message.links.length > 0 ? (
                <Stack gap={4}>
                  <Group gap="xs">
                    <Badge variant="light">Links</Badge>
                  </Group>
                  {message.links.map((link) => (
                    <Anchor key={link} href={link} style={{ wordBreak: 'break-all' }}>
                      {link}
                    </Anchor>
                  ))}
                </Stack>
              ) : null}
              <Text component="pre" size="sm" style={{ whiteSpace: 'pre-wrap', fontFamily: 'inherit', margin: 0 }}>
                {message.text}
              </Text>
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}
