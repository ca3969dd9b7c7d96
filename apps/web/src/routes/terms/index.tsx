import { Anchor, Container, Stack, Text, Title } from '@mantine/core';
import { createFileRoute, Link } from '@tanstack/react-router';
import { SUPPORT_EMAIL } from '../../lib/support.ts';
import { TERMS_SECTIONS } from './-components/terms-sections.ts';

export const Route = createFileRoute('/terms/')({
  component: TermsPage,
});

function TermsPage() {
  return (
    <Container size="md" py="xl">
      <Stack gap="lg" component="article">
        <Stack gap="xs">
          <Anchor component={Link} to="/" size="sm">
            ← Back to Switchyard
          </Anchor>
          <Title order={1}>Terms of Service</Title>
          <Text c="dimmed">
            These terms are the agreement between you, the merchant, and Switchyard for the use of the Switchyard back
            office. By creating an account or using the service you accept them.
          </Text>
        </Stack>
        {TERMS_SECTIONS.map((section, index) => (
          <Stack gap="xs" component="section" key={section.title} aria-labelledby={`terms-${index}`}>
            <Title order={2} size="h3" id={`terms-${index}`}>
              {index + 1}. {section.title}
            </Title>
            {section.paragraphs.map((paragraph) => (
              <Text key={paragraph}>{paragraph}</Text>
            ))}
          </Stack>
        ))}
        <Text>
          Questions about these terms: write to <Anchor href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</Anchor>.
        </Text>
      </Stack>
    </Container>
  );
}
