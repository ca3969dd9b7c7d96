import { Card, Stack, Text, Title } from '@mantine/core';
import { type ReactNode, useId } from 'react';

export interface SectionCardProps {
  title: string;
  description?: ReactNode;
  /** Controls shown next to the title (a "Create" button, say). */
  actions?: ReactNode;
  children: ReactNode;
}

/** A titled part of a page, named by its heading for assistive technology. */
export function SectionCard({ title, description, actions, children }: SectionCardProps) {
  const titleId = useId();
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={titleId}>
      <Stack gap="md">
        <Stack gap={4}>
          {/* Actions sit level with the title, as a Mantine modal's close button does with its title. */}
          <div
            style={{
              display: 'flex',
              justifyContent: 'space-between',
              alignItems: 'center',
              gap: 12,
              flexWrap: 'wrap',
            }}
          >
            <Title order={2} size="h4" id={titleId}>
              {title}
            </Title>
            {actions}
          </div>
          {description ? (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          ) : null}
        </Stack>
        {children}
      </Stack>
    </Card>
  );
}
