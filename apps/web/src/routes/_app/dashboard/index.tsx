import { Stack, Title } from '@mantine/core';
import { DashboardSearch } from '@switchyard/contracts';
import { createFileRoute } from '@tanstack/react-router';
import { GetStarted } from './-components/get-started.tsx';

export const Route = createFileRoute('/_app/dashboard/')({
  validateSearch: DashboardSearch,
  component: DashboardPage,
});

function DashboardPage() {
  return (
    <Stack gap="lg">
      <Title order={1}>Dashboard</Title>
      <GetStarted />
    </Stack>
  );
}
