import { Button, Group, Stack, Text } from '@mantine/core';
import { EXPORT_DOWNLOADS, type ExportPath } from '@switchyard/contracts';
import { useMutation } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { downloadExport } from '../-components/export-download.ts';

// SPEC §2: the exports settings sub-page; §7 frontend `GET export/catalogInventory` and `GET export/alu`.
export const Route = createFileRoute('/_app/settings/_layout/exports')({
  component: ExportsPage,
});

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function ExportsPage() {
  return (
    <Stack gap="lg">
      <Text size="sm" c="dimmed">
        Download your catalog and stock as CSV files for a spreadsheet, your accountant or another system. Files are
        built from the live data when you click, however large your catalog.
      </Text>
      {EXPORT_DOWNLOADS.map((download) => (
        <ExportCard
          key={download.path}
          path={download.path}
          label={download.label}
          description={download.description}
        />
      ))}
    </Stack>
  );
}

function ExportCard({ path, label, description }: { path: ExportPath; label: string; description: string }) {
  const [received, setReceived] = useState(0);
  const download = useMutation({
    mutationFn: () => {
      setReceived(0);
      return downloadExport(path, setReceived);
    },
    onSuccess: (filename) => notify.success('Download ready', { description: filename }),
    onError: (error) => notify.error(`Could not download ${label.toLowerCase()}`, { description: errorMessage(error) }),
  });
  return (
    <SectionCard
      title={label}
      description={description}
      actions={
        <Button onClick={() => download.mutate()} loading={download.isPending} aria-label={`Download ${label} (CSV)`}>
          Download CSV
        </Button>
      }
    >
      <Group gap="xs" aria-live="polite" mih={20}>
        {download.isPending ? (
          <Text size="sm">
            {received > 0 ? `Downloading… ${formatBytes(received)} received` : 'Preparing the file…'}
          </Text>
        ) : download.isSuccess ? (
          <Text size="sm" c="dimmed">
            Saved as {download.data}.
          </Text>
        ) : download.isError ? (
          <Text size="sm" c="red">
            {errorMessage(download.error)}
          </Text>
        ) : null}
      </Group>
    </SectionCard>
  );
}
