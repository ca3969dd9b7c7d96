import { Anchor, Center, Container, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ColorModeSwitch } from './color-mode-switch.tsx';

export interface AuthPageProps {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  /** Under the card: links to the other account screens. */
  footer?: ReactNode;
}

/** The frame of the signed-out screens (sign-in, registration, reset, confirmation). */
export function AuthPage({ title, description, children, footer }: AuthPageProps) {
  return (
    <Container size={480} py="xl" component="main">
      <Stack gap="lg">
        <Group justify="space-between" wrap="nowrap">
          <Anchor component={Link} to="/" fw={700} fz="lg" c="inherit" underline="never">
            Switchyard
          </Anchor>
          <ColorModeSwitch />
        </Group>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <Stack gap="md">
            <Stack gap={4}>
              <Title order={1} size="h2">
                {title}
              </Title>
              {description ? (
                <Text c="dimmed" size="sm">
                  {description}
                </Text>
              ) : null}
            </Stack>
            {children}
          </Stack>
        </Paper>
        {footer ? (
          <Center>
            <Stack gap={4} align="center">
              {footer}
            </Stack>
          </Center>
        ) : null}
      </Stack>
    </Container>
  );
}
