import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { errorMessage } from '../../../../lib/errors.ts';

export interface DeleteProductsDialogProps {
  opened: boolean;
  /** What is deleted, e.g. "Linen shirt" or "3 products". */
  subject: string;
  count: number;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}

/** Confirms deleting products; the safe choice has the focus and Escape cancels. */
export function DeleteProductsDialog({
  opened,
  subject,
  count,
  pending,
  error,
  onConfirm,
  onClose,
}: DeleteProductsDialogProps) {
  return (
    <Modal opened={opened} onClose={onClose} title={`Delete ${subject}?`}>
      <Stack gap="md">
        <Text size="sm">
          {count === 1 ? 'The product, its variants' : 'These products, their variants'} and{' '}
          {count === 1 ? 'its' : 'their'} stock levels are removed from Switchyard, and Switchyard stops syncing{' '}
          {count === 1 ? 'it' : 'them'} with your channels. This cannot be undone.
        </Text>
        {error ? (
          <Alert color="red" variant="light" title="Could not delete" role="alert">
            {errorMessage(error)}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red" loading={pending} onClick={onConfirm}>
            Delete
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
