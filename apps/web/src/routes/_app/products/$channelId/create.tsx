import { Anchor, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { QueryError } from '../../../../components/query-error.tsx';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useAccountCurrency } from '../-components/product-api.ts';
import { EMPTY_PRODUCT_FORM, ProductForm } from '../-components/product-form.tsx';

export const Route = createFileRoute('/_app/products/$channelId/create')({
  component: CreateProductPage,
});

/** A new product; it is listed on this channel as pending and published as the channel's settings say. */
function CreateProductPage() {
  const { channelId } = Route.useParams();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const currency = useAccountCurrency();
  const [initial] = useState(EMPTY_PRODUCT_FORM);
  const create = useMutation(
    trpc.products.create.mutationOptions({
      onSuccess: async (product) => {
        queryClient.setQueryData(trpc.products.get.queryKey({ id: product.id }), product);
        await Promise.all([
          queryClient.invalidateQueries(trpc.products.list.pathFilter()),
          queryClient.invalidateQueries(trpc.products.brands.pathFilter()),
        ]);
        notify.success(`${product.title} was created.`);
        await navigate({ to: '/products/$channelId/$id', params: { channelId, id: product.id } });
      },
    }),
  );

  return (
    <Stack gap="lg" maw={1200}>
      <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/products/$channelId" params={{ channelId }} />}>
        ← Products
      </Anchor>
      <Stack gap={4}>
        <Title order={1}>Add a product</Title>
        <Text c="dimmed" size="sm">
          It is listed on this channel and sent there as soon as you save.
        </Text>
      </Stack>
      {currency.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the form">
          <Skeleton height={160} />
          <Skeleton height={120} />
        </Stack>
      ) : currency.isError ? (
        <QueryError
          title="Could not load your account's currency"
          error={currency.error}
          onRetry={currency.refetch}
          retrying={currency.isFetching}
        />
      ) : (
        <ProductForm
          initial={initial}
          currency={currency.data}
          submitLabel="Create product"
          saving={create.isPending}
          saveError={create.error}
          onSubmit={(input) => create.mutate({ ...input, channelId })}
          onCancel={() => void navigate({ to: '/products/$channelId', params: { channelId } })}
        />
      )}
    </Stack>
  );
}
