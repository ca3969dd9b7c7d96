import { Alert, Anchor, Skeleton, Stack, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { z } from 'zod';
import { QueryError } from '../../../../components/query-error.tsx';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { productDisplayName, productOptions, useAccountCurrency } from '../-components/product-api.ts';
import { ProductForm, productToForm } from '../-components/product-form.tsx';

/** SPEC §2 gives /products/{channelId}/edit no id segment: the product id travels as `?id=`. */
const EditSearch = z.object({ id: z.string().trim().max(64).catch('').default('') });

export const Route = createFileRoute('/_app/products/$channelId/edit')({
  validateSearch: EditSearch,
  component: EditProductPage,
});

function EditProductPage() {
  const { channelId } = Route.useParams();
  const { id } = Route.useSearch();
  const back = (
    <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/products/$channelId" params={{ channelId }} />}>
      ← Products
    </Anchor>
  );
  if (!id) {
    return (
      <Stack gap="lg" maw={1200}>
        {back}
        <Alert color="orange" variant="light" title="Which product?" role="alert">
          This address does not name a product to edit. Open one from the list and choose Edit.
        </Alert>
      </Stack>
    );
  }
  return <EditProduct key={id} channelId={channelId} id={id} back={back} />;
}

function EditProduct({ channelId, id, back }: { channelId: string; id: string; back: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const product = useQuery(productOptions(trpc, id));
  const currency = useAccountCurrency();
  const update = useMutation(
    trpc.products.update.mutationOptions({
      onSuccess: async (saved) => {
        queryClient.setQueryData(trpc.products.get.queryKey({ id: saved.id }), saved);
        await Promise.all([
          queryClient.invalidateQueries(trpc.products.list.pathFilter()),
          queryClient.invalidateQueries(trpc.products.brands.pathFilter()),
        ]);
        notify.success(`${productDisplayName(saved)} was saved.`);
        await navigate({ to: '/products/$channelId/$id', params: { channelId, id: saved.id } });
      },
    }),
  );
  const toView = () => void navigate({ to: '/products/$channelId/$id', params: { channelId, id } });

  return (
    <Stack gap="lg" maw={1200}>
      {back}
      {product.isPending || currency.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the product">
          <Skeleton height={36} width="40%" />
          <Skeleton height={160} />
          <Skeleton height={120} />
        </Stack>
      ) : product.isError ? (
        <QueryError
          title="Could not load this product"
          error={product.error}
          onRetry={product.refetch}
          retrying={product.isFetching}
        />
      ) : currency.isError ? (
        <QueryError
          title="Could not load your account's currency"
          error={currency.error}
          onRetry={currency.refetch}
          retrying={currency.isFetching}
        />
      ) : (
        <>
          <Title order={1}>Edit {productDisplayName(product.data)}</Title>
          <ProductForm
            initial={productToForm(product.data, currency.data)}
            currency={currency.data}
            submitLabel="Save product"
            saving={update.isPending}
            saveError={update.error}
            onSubmit={(input) => update.mutate({ ...input, id })}
            onCancel={toView}
          />
        </>
      )}
    </Stack>
  );
}
