import { Alert, Button, Group, Paper, Skeleton, Stack, Text, Textarea } from '@mantine/core';
import { CommentAddInput } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { commentListOptions, refreshOrders } from './order-api.ts';

/** Comments on one order: the newest first, and a box to add one (checked by the contract's own schema). */
export function CommentsSection({ orderId }: { orderId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const comments = useQuery(commentListOptions(trpc, orderId));
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const add = useMutation(
    trpc.comments.add.mutationOptions({
      onSuccess: async () => {
        setText('');
        // The comment also lands on the order's timeline.
        await refreshOrders(queryClient, trpc);
      },
    }),
  );

  const submit = () => {
    const parsed = CommentAddInput.safeParse({ entity_id: orderId, type: 'order', text });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    add.mutate(parsed.data);
  };

  return (
    <SectionCard title="Comments">
      <form
        aria-label="Add a comment"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack gap="xs">
          <Textarea
            label="Add a comment"
            placeholder="Only your team sees comments."
            value={text}
            onChange={(event) => {
              setText(event.currentTarget.value);
              if (error) setError(undefined);
            }}
            onKeyDown={(event) => {
              // Ctrl/⌘+Enter sends, as in most comment boxes.
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                event.preventDefault();
                submit();
              }
            }}
            error={error}
            rows={3}
          />
          {add.isError ? (
            <Alert color="red" variant="light" title="The comment was not added" role="alert">
              {errorMessage(add.error)}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button type="submit" loading={add.isPending}>
              Add comment
            </Button>
          </Group>
        </Stack>
      </form>

      {comments.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading comments">
          <Skeleton height={48} />
          <Skeleton height={48} />
        </Stack>
      ) : comments.isError ? (
        <QueryError
          title="Could not load the comments"
          error={comments.error}
          onRetry={comments.refetch}
          retrying={comments.isFetching}
        />
      ) : comments.data.results.length === 0 ? (
        <Text size="sm" c="dimmed">
          No comments yet.
        </Text>
      ) : (
        <Stack gap="sm" component="ul" aria-label="Comments" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {comments.data.results.map((comment) => (
            <Paper key={comment.id} component="li" withBorder p="sm" radius="sm">
              <Text size="xs" c="dimmed">
                {comment.author ?? 'Someone'} ·{' '}
                <time dateTime={comment.created_at.toISOString()}>
                  {formatDateTime(comment.created_at.toISOString())}
                </time>
              </Text>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {comment.text}
              </Text>
            </Paper>
          ))}
        </Stack>
      )}
    </SectionCard>
  );
}
