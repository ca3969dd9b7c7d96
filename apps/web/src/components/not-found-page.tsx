import { Anchor, Button, Container, Group, List, Stack, Text, TextInput, Title } from '@mantine/core';
import { MESSAGES } from '@switchyard/contracts';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useId, useState } from 'react';
import { useAuth } from '../lib/auth.ts';
import { findDestinations } from '../lib/nav.ts';

/** SPEC §2: the 404 text and a search box that finds the screens that do exist. */
export function NotFoundPage() {
  const [query, setQuery] = useState('');
  const navigate = useNavigate();
  const resultsId = useId();
  const auth = useAuth();
  const matches = findDestinations(query, auth);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const [first] = matches;
    if (first) void navigate({ to: first.to });
  };

  return (
    <Container size="sm" py="xl">
      <Stack gap="lg">
        <Title order={1} size="h2">
          {MESSAGES.notFound}
        </Title>
        {/* biome-ignore lint/a11y/useSemanticElements: <search> is too new for some supported browsers (and jsdom). */}
        <form role="search" onSubmit={onSubmit}>
          <Group align="flex-end" gap="sm">
            <TextInput
              label="Search"
              placeholder="Where did you want to go?"
              value={query}
              onChange={(event) => setQuery(event.currentTarget.value)}
              aria-controls={resultsId}
              style={{ flex: 1 }}
            />
            <Button type="submit" disabled={matches.length === 0}>
              Go
            </Button>
          </Group>
        </form>
        <section id={resultsId} aria-live="polite" aria-label="Matching pages">
          {matches.length === 0 ? (
            <Text c="dimmed">No page matches “{query.trim()}”.</Text>
          ) : (
            <List spacing="xs">
              {matches.map((destination) => (
                <List.Item key={destination.to}>
                  <Anchor component={Link} to={destination.to}>
                    {destination.label}
                  </Anchor>
                  <Text span c="dimmed" size="sm">
                    {' '}
                    — {destination.description}
                  </Text>
                </List.Item>
              ))}
            </List>
          )}
        </section>
      </Stack>
    </Container>
  );
}
