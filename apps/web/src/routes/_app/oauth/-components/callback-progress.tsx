import { Center, Group, Loader, Paper, Text } from '@mantine/core';

export function CallbackProgress({ label }: { label: string }) {
  return (
    <Center py="xl">
      <Paper withBorder radius="md" p="xl" maw={560} w="100%">
        <Group gap="sm" wrap="nowrap">
          <Loader size="sm" aria-hidden />
          <Text role="status">Finishing connecting {label}…</Text>
        </Group>
      </Paper>
    </Center>
  );
}
