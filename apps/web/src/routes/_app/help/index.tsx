import { Alert, Anchor, Badge, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { createFileRoute, stripSearchParams, useNavigate } from '@tanstack/react-router';
import MiniSearch from 'minisearch';
import { useEffect, useMemo, useRef } from 'react';
import { z } from 'zod';
import { SUPPORT_EMAIL } from '../../../lib/support.ts';
import { useDebouncedText } from '../../../lib/use-debounced-text.ts';
import { HELP_ARTICLES, type HelpArticle } from './-components/articles.ts';
import { Markdown, plainText } from './-components/markdown.tsx';

const HelpSearch = z.object({ q: z.string().trim().max(200).optional().catch(undefined) });

export const Route = createFileRoute('/_app/help/')({
  validateSearch: HelpSearch,
  search: { middlewares: [stripSearchParams({ q: undefined })] },
  component: HelpPage,
});

/** The articles' index: prefix and typo-tolerant matches; titles and keywords weigh more than the text. */
function buildIndex() {
  const index = new MiniSearch<HelpArticle & { text: string }>({
    fields: ['title', 'keywords', 'text'],
    storeFields: ['id'],
    searchOptions: { boost: { title: 3, keywords: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'AND' },
  });
  index.addAll(HELP_ARTICLES.map((a) => ({ ...a, text: plainText(a.body) })));
  return index;
}

function HelpPage() {
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const index = useMemo(buildIndex, []);
  const inputRef = useRef<HTMLInputElement>(null);
  const text = useDebouncedText(search.q ?? '', (q) => void navigate({ search: { q: q || undefined }, replace: true }));

  // "/" puts the cursor in the search box (unless the reader is typing somewhere already).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing = target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
      if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        inputRef.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const query = search.q ?? '';
  const articles = useMemo(() => {
    if (!query) return HELP_ARTICLES;
    const ids = index.search(query).map((r) => r.id as string);
    return ids.map((id) => HELP_ARTICLES.find((a) => a.id === id)).filter((a): a is HelpArticle => Boolean(a));
  }, [index, query]);

  return (
    <Stack gap="lg" maw={900}>
      <Stack gap={4}>
        <Title order={1}>Help</Title>
        <Text c="dimmed" size="sm">
          How Switchyard works, what its numbers and statuses mean, and how to reach us.
        </Text>
      </Stack>
      <TextInput
        ref={inputRef}
        type="search"
        label="Search help"
        placeholder="Try “buffer”, “available”, “Square” or “shortcuts”"
        description="Press / to search from anywhere on this page."
        value={text.text}
        onChange={(event) => text.setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') text.flush();
          if (event.key === 'Escape') {
            text.setText('');
            text.flush();
          }
        }}
        maw={480}
      />
      {query ? (
        <Text size="sm" c="dimmed" aria-live="polite">
          {articles.length === 0
            ? `No article matches “${query}”.`
            : `${articles.length} ${articles.length === 1 ? 'article matches' : 'articles match'} “${query}”.`}
        </Text>
      ) : (
        <Group gap="xs" component="nav" aria-label="Help articles">
          {HELP_ARTICLES.map((a) => (
            <Anchor key={a.id} href={`#${a.id}`} size="sm">
              {a.title}
            </Anchor>
          ))}
        </Group>
      )}
      {articles.length === 0 ? (
        <Alert variant="light" title="Nothing found">
          Try fewer or other words, or write to {SUPPORT_EMAIL}: we answer every question.
        </Alert>
      ) : (
        articles.map((article) => (
          <Card
            key={article.id}
            withBorder
            padding="lg"
            radius="md"
            component="article"
            aria-labelledby={`${article.id}-title`}
          >
            <Group justify="space-between" align="flex-start" mb="xs" wrap="nowrap">
              <Title order={2} size="h4" id={`${article.id}-title`}>
                <span id={article.id}>{article.title}</span>
              </Title>
              <Badge variant="light" color="gray">
                {article.section}
              </Badge>
            </Group>
            <Markdown source={article.body} />
          </Card>
        ))
      )}
    </Stack>
  );
}
