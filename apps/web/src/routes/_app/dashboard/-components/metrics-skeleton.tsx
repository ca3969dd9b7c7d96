import { SimpleGrid, Skeleton } from '@mantine/core';

/** The figures' places while they load (and while the charts' code loads). */
export function MetricsSkeleton() {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} aria-busy="true" aria-label="Loading the figures">
      {Array.from({ length: 6 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholders
        <Skeleton key={i} h={260} radius="md" />
      ))}
    </SimpleGrid>
  );
}
