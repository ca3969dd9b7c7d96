import { Anchor, Code, List, Text, Title } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';

/** Inline marks: **bold**, `code` and [text](href) (app paths go through the router; others open as links). */
function inline(text: string, keyPrefix: string): ReactNode[] {
  const out: ReactNode[] = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`|\[([^\]]+)\]\(([^)]+)\)/g;
  let last = 0;
  let match: RegExpExecArray | null = pattern.exec(text);
  let i = 0;
  while (match) {
    if (match.index > last) out.push(text.slice(last, match.index));
    const key = `${keyPrefix}-${i++}`;
    if (match[1] !== undefined) out.push(<strong key={key}>{match[1]}</strong>);
    else if (match[2] !== undefined) out.push(<Code key={key}>{match[2]}</Code>);
    else {
      const href = match[4] as string;
      const appPath = href.startsWith('/') && !href.startsWith('/api/');
      out.push(
        appPath ? (
          <Anchor key={key} component={Link} to={href}>
            {match[3]}
          </Anchor>
        ) : (
          <Anchor key={key} href={href} target={href.startsWith('mailto:') ? undefined : '_blank'} rel="noreferrer">
            {match[3]}
          </Anchor>
        ),
      );
    }
    last = pattern.lastIndex;
    match = pattern.exec(text);
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** The little markdown the help articles use: paragraphs, "### " headings and "- " lists. */
export function Markdown({ source }: { source: string }) {
  const blocks = source.split(/\n\s*\n/);
  return (
    <>
      {blocks.map((block, b) => {
        const key = `b${b}`;
        const lines = block.split('\n');
        const nodes: ReactNode[] = [];
        let items: string[] = [];
        const flush = () => {
          if (items.length === 0) return;
          nodes.push(
            <List key={`${key}-l${nodes.length}`} size="sm" spacing={4} withPadding mb="sm">
              {items.map((item, n) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: static text, never reordered
                <List.Item key={n}>{inline(item, `${key}-i${n}`)}</List.Item>
              ))}
            </List>,
          );
          items = [];
        };
        let paragraph: string[] = [];
        const flushParagraph = () => {
          if (paragraph.length === 0) return;
          nodes.push(
            <Text key={`${key}-p${nodes.length}`} size="sm" mb="sm">
              {inline(paragraph.join(' '), `${key}-p${nodes.length}`)}
            </Text>,
          );
          paragraph = [];
        };
        for (const line of lines) {
          if (line.startsWith('### ')) {
            flush();
            flushParagraph();
            nodes.push(
              <Title key={`${key}-h${nodes.length}`} order={3} size="h5" mt="sm" mb={6}>
                {line.slice(4)}
              </Title>,
            );
          } else if (line.startsWith('- ')) {
            flushParagraph();
            items.push(line.slice(2));
          } else if (line.trim()) {
            flush();
            paragraph.push(line.trim());
          }
        }
        flush();
        flushParagraph();
        return nodes;
      })}
    </>
  );
}

/** The text a reader sees (marks removed), for the search index. */
export function plainText(source: string): string {
  return source
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\*\*|`|^### |^- /gm, '')
    .replace(/\s+/g, ' ');
}
