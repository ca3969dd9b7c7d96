import { Anchor, Badge, Button, Group, Image, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { PRODUCT_STATUS_LABELS, type ProductDetail, type ProductVariant } from '@switchyard/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { z } from 'zod';
import { QueryError } from '../../../../components/query-error.tsx';
import { SectionCard } from '../../../../components/section-card.tsx';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { DeleteProductsDialog } from '../-components/delete-products-dialog.tsx';
import { formatPrice, productDisplayName, productOptions, useAccountCurrency } from '../-components/product-api.ts';
import {
  AvailableTable,
  ListingsTable,
  MovementsTable,
  StockTable,
  SyncHistoryTable,
} from '../-components/product-sections.tsx';
import { StockChangeModal, type StockChangeTarget } from '../-components/stock-change-modal.tsx';
import { SyncStatusBadge } from '../-components/sync-status-badge.tsx';

/** `?variant=` picks the variant whose stock, availability and listings show (the first one by default). */
const ViewSearch = z.object({ variant: z.string().trim().max(64).optional().catch(undefined) });

export const Route = createFileRoute('/_app/products/$channelId/$id')({
  validateSearch: ViewSearch,
  component: ProductPage,
});

const STATUS_COLORS = { active: 'teal', draft: 'gray', archived: 'orange' } as const;

function ProductPage() {
  const { channelId, id } = Route.useParams();
  const trpc = useTRPC();
  const product = useQuery(productOptions(trpc, id));
  return (
    <Stack gap="lg" maw={1300}>
      <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/products/$channelId" params={{ channelId }} />}>
        ← Products
      </Anchor>
      {product.isPending ? (
        <Stack gap="md" role="status" aria-label="Loading the product">
          <Skeleton height={36} width="40%" />
          <Skeleton height={120} />
          <Skeleton height={200} />
        </Stack>
      ) : product.isError ? (
        <QueryError
          title="Could not load this product"
          error={product.error}
          onRetry={product.refetch}
          retrying={product.isFetching}
        />
      ) : (
        <ProductView product={product.data} channelId={channelId} refreshing={product.isFetching} />
      )}
    </Stack>
  );
}

function ProductView({
  product,
  channelId,
  refreshing,
}: {
  product: ProductDetail;
  channelId: string;
  refreshing: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate({ from: Route.fullPath });
  const { variant: variantId } = Route.useSearch();
  const currency = useAccountCurrency().data;
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [stockChange, setStockChange] = useState<StockChangeTarget | null>(null);
  const name = productDisplayName(product);

  const variants = [...product.variants].sort((a, b) => a.position - b.position);
  const variant = variants.find((v) => v.id === variantId) ?? variants[0];

  const sync = useMutation(
    trpc.products.sync.mutationOptions({
      onSuccess: async (saved) => {
        queryClient.setQueryData(trpc.products.get.queryKey({ id: saved.id }), saved);
        await queryClient.invalidateQueries(trpc.products.list.pathFilter());
        notify.success(`${name} is queued to sync.`);
      },
      onError: (error) => notify.error(`Could not sync: ${error.message}`),
    }),
  );
  const remove = useMutation(
    trpc.products.delete.mutationOptions({
      onSuccess: async () => {
        setConfirmingDelete(false);
        notify.success(`${name} was deleted.`);
        await navigate({ to: '/products/$channelId', params: { channelId } });
        queryClient.removeQueries(trpc.products.get.queryFilter({ id: product.id }));
        await Promise.all([
          queryClient.invalidateQueries(trpc.products.list.pathFilter()),
          queryClient.invalidateQueries(trpc.products.brands.pathFilter()),
        ]);
      },
    }),
  );

  return (
    <Stack gap="lg" aria-busy={refreshing}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Group gap="sm" align="center" wrap="wrap">
            <Title order={1}>{name}</Title>
            <Badge color={STATUS_COLORS[product.status]} variant="light">
              {PRODUCT_STATUS_LABELS[product.status]}
            </Badge>
          </Group>
          <Text c="dimmed" size="sm">
            {[
              product.brand,
              product.productType,
              `${variants.length} ${variants.length === 1 ? 'variant' : 'variants'}`,
            ]
              .filter(Boolean)
              .join(' · ')}
          </Text>
        </Stack>
        <Group gap="xs">
          <Button
            variant="default"
            renderRoot={(props) => (
              <Link {...props} to="/products/$channelId/edit" params={{ channelId }} search={{ id: product.id }} />
            )}
          >
            Edit
          </Button>
          <Button variant="light" loading={sync.isPending} onClick={() => sync.mutate({ id: product.id, channelId })}>
            Sync
          </Button>
          <Button variant="light" color="red" onClick={() => setConfirmingDelete(true)}>
            Delete
          </Button>
        </Group>
      </Group>

      {product.images.length > 0 || product.description ? (
        <SectionCard title="Details">
          {product.images.length > 0 ? (
            <Group gap="sm" role="list" aria-label="Images">
              {product.images.map((url, index) => (
                <Image
                  key={url}
                  role="listitem"
                  src={url}
                  alt={`${name}, image ${index + 1}`}
                  h={96}
                  w={96}
                  fit="contain"
                  radius="sm"
                />
              ))}
            </Group>
          ) : null}
          {product.description ? (
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {product.description}
            </Text>
          ) : null}
        </SectionCard>
      ) : null}

      <SectionCard
        title="Variants"
        description={variants.length > 1 ? 'Choose a variant to see its stock, availability and listings.' : undefined}
      >
        <Table.ScrollContainer minWidth={760}>
          <Table aria-label="Variants" verticalSpacing="xs" highlightOnHover={variants.length > 1}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">SKU</Table.Th>
                <Table.Th scope="col">Variant</Table.Th>
                <Table.Th scope="col">ALU</Table.Th>
                <Table.Th scope="col">Barcode</Table.Th>
                <Table.Th scope="col">Price</Table.Th>
                <Table.Th scope="col">Compare-at</Table.Th>
                <Table.Th scope="col">On hand</Table.Th>
                <Table.Th scope="col">Sync status here</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {variants.map((v) => (
                <VariantRow
                  key={v.id}
                  variant={v}
                  channelId={channelId}
                  currency={currency}
                  current={v.id === variant?.id}
                  choosable={variants.length > 1}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </SectionCard>

      {variant ? (
        <>
          <StockTable
            sku={variant.sku}
            stock={variant.stock}
            onChange={(mode, level) =>
              setStockChange({
                mode,
                variantId: variant.id,
                sku: variant.sku,
                locationId: level.locationId,
                locationName: level.locationName,
                onHand: level.onHand,
                reserved: level.reserved,
              })
            }
          />
          <AvailableTable sku={variant.sku} rows={variant.available} />
          <ListingsTable sku={variant.sku} listings={variant.listings} />
        </>
      ) : null}
      <MovementsTable movements={product.movements} />
      <SyncHistoryTable syncs={product.syncs} />

      <StockChangeModal target={stockChange} onClose={() => setStockChange(null)} />
      <DeleteProductsDialog
        opened={confirmingDelete}
        subject={name}
        count={1}
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({ id: product.id })}
        onClose={() => {
          remove.reset();
          setConfirmingDelete(false);
        }}
      />
    </Stack>
  );
}

function VariantRow({
  variant,
  channelId,
  currency,
  current,
  choosable,
}: {
  variant: ProductVariant;
  channelId: string;
  currency: string | undefined;
  current: boolean;
  choosable: boolean;
}) {
  const listing = variant.listings.find((l) => l.channelId === channelId);
  const onHand = variant.stock.reduce((sum, level) => sum + level.onHand, 0);
  return (
    <Table.Tr bg={current && choosable ? 'var(--mantine-primary-color-light)' : undefined}>
      <Table.Td>
        {choosable ? (
          <Anchor
            size="sm"
            ff="monospace"
            aria-current={current ? 'true' : undefined}
            renderRoot={(props) => (
              <Link {...props} from={Route.fullPath} to="." search={{ variant: variant.id }} replace />
            )}
          >
            {variant.sku}
          </Anchor>
        ) : (
          <Text size="sm" ff="monospace">
            {variant.sku}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{variant.title || '—'}</Table.Td>
      <Table.Td>{variant.alu ?? '—'}</Table.Td>
      <Table.Td>{variant.barcode ?? '—'}</Table.Td>
      <Table.Td>{formatPrice(variant.price, currency)}</Table.Td>
      <Table.Td>{formatPrice(variant.compareAtPrice, currency)}</Table.Td>
      <Table.Td>{onHand}</Table.Td>
      <Table.Td>
        <SyncStatusBadge code={listing?.syncStatusCode ?? 0} error={listing?.lastError} />
      </Table.Td>
    </Table.Tr>
  );
}
