import {
  ActionIcon,
  Alert,
  Button,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import {
  MAX_VARIANTS_PER_PRODUCT,
  PRODUCT_STATUS_LABELS,
  PRODUCT_STATUSES,
  type ProductDetail,
  ProductInput,
  type ProductInputParsed,
  type ProductStatus,
} from '@switchyard/contracts';
import { TRPCClientError } from '@trpc/client';
import { type FormEvent, useRef, useState } from 'react';
import { SectionCard } from '../../../../components/section-card.tsx';
import { errorMessage } from '../../../../lib/errors.ts';
import { currencyDigits, fromMinorUnits, toMinorUnits } from '../../../subscription/-components/money.ts';
import { ImageUploader } from './image-uploader.tsx';

/** A variant as typed: prices in the currency's major units ("12.50"); `key` keeps the row while editing. */
export interface VariantRow {
  key: string;
  id?: string;
  sku: string;
  alu: string;
  barcode: string;
  title: string;
  price: string;
  compareAtPrice: string;
}

export interface ProductFormValues {
  title: string;
  description: string;
  brand: string;
  productType: string;
  status: ProductStatus;
  images: string[];
  variants: VariantRow[];
}

/** Field errors by path: `title`, `variants.0.sku`, … */
export type ProductFormErrors = Record<string, string>;

let rowCounter = 0;
const newRowKey = () => `row-${++rowCounter}`;

export function emptyVariantRow(): VariantRow {
  return { key: newRowKey(), sku: '', alu: '', barcode: '', title: '', price: '', compareAtPrice: '' };
}

export const EMPTY_PRODUCT_FORM = (): ProductFormValues => ({
  title: '',
  description: '',
  brand: '',
  productType: '',
  status: 'active',
  images: [],
  variants: [emptyVariantRow()],
});

/** A saved product as the form edits it. */
export function productToForm(product: ProductDetail, currency: string): ProductFormValues {
  return {
    title: product.title,
    description: product.description,
    brand: product.brand ?? '',
    productType: product.productType ?? '',
    status: product.status,
    images: product.images,
    variants: [...product.variants]
      .sort((a, b) => a.position - b.position)
      .map((variant) => ({
        key: newRowKey(),
        id: variant.id,
        sku: variant.sku,
        alu: variant.alu ?? '',
        barcode: variant.barcode ?? '',
        title: variant.title,
        price: fromMinorUnits(variant.price, currency),
        compareAtPrice: variant.compareAtPrice === null ? '' : fromMinorUnits(variant.compareAtPrice, currency),
      })),
  };
}

function amountMessage(currency: string): string {
  const digits = currencyDigits(currency);
  return digits === 0
    ? `Enter a whole amount in ${currency.toUpperCase()}`
    : `Enter an amount like 12.50 (at most ${digits} decimals)`;
}

/**
 * Checks the form with the same schema the server uses (ProductInput), after turning prices typed in
 * major units into minor units. Gives the parsed input, or the errors by field path.
 */
export function validateProductForm(
  values: ProductFormValues,
  currency: string,
): { data: ProductInputParsed; errors?: undefined } | { data?: undefined; errors: ProductFormErrors } {
  const errors: ProductFormErrors = {};
  const variants = values.variants.map((row, index) => {
    const price = row.price.trim() === '' ? undefined : toMinorUnits(row.price, currency);
    if (row.price.trim() === '') errors[`variants.${index}.price`] = '* Required';
    else if (price === undefined) errors[`variants.${index}.price`] = amountMessage(currency);
    const compare = row.compareAtPrice.trim() === '' ? null : toMinorUnits(row.compareAtPrice, currency);
    if (compare === undefined) errors[`variants.${index}.compareAtPrice`] = amountMessage(currency);
    return {
      ...(row.id ? { id: row.id } : {}),
      sku: row.sku,
      alu: row.alu,
      barcode: row.barcode,
      title: row.title,
      price: price ?? 0,
      compareAtPrice: compare ?? null,
    };
  });
  const result = ProductInput.safeParse({
    title: values.title,
    description: values.description,
    brand: values.brand,
    productType: values.productType,
    status: values.status,
    images: values.images,
    variants,
  });
  if (!result.success) {
    for (const issue of result.error.issues) {
      const path = issue.path.join('.');
      if (!(path in errors)) errors[path] = issue.message;
    }
  }
  if (Object.keys(errors).length > 0 || !result.success) return { errors };
  return { data: result.data };
}

/** The variant whose SKU the server found taken (CONFLICT: `SKU "<sku>" is already used by another product.`). */
export function conflictingSkuPath(error: unknown, values: ProductFormValues): string | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  if ((error.data as { code?: string } | undefined)?.code !== 'CONFLICT') return undefined;
  const sku = /SKU "(.+)"/.exec(error.message)?.[1];
  if (!sku) return undefined;
  const index = values.variants.findIndex((row) => row.sku.trim().toLowerCase() === sku.toLowerCase());
  return index === -1 ? undefined : `variants.${index}.sku`;
}

export interface ProductFormProps {
  initial: ProductFormValues;
  currency: string;
  submitLabel: string;
  saving: boolean;
  /** The failure of the last save, shown above the buttons (and on the SKU field for a taken SKU). */
  saveError: unknown;
  onSubmit: (input: ProductInputParsed, values: ProductFormValues) => void;
  onCancel: () => void;
}

/** Create and edit: the product, its images and its variants. */
export function ProductForm({
  initial,
  currency,
  submitLabel,
  saving,
  saveError,
  onSubmit,
  onCancel,
}: ProductFormProps) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<ProductFormErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const [uploading, setUploading] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  const update = (next: ProductFormValues) => {
    setValues(next);
    if (submitted) setErrors(validateProductForm(next, currency).errors ?? {});
  };
  const set = <K extends keyof ProductFormValues>(field: K, value: ProductFormValues[K]) =>
    update({ ...values, [field]: value });
  const setVariant = (index: number, field: keyof Omit<VariantRow, 'key' | 'id'>, value: string) =>
    set(
      'variants',
      values.variants.map((row, i) => (i === index ? { ...row, [field]: value } : row)),
    );

  const conflictPath = conflictingSkuPath(saveError, values);
  const errorAt = (path: string) =>
    errors[path] ?? (path === conflictPath && saveError ? errorMessage(saveError) : undefined);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    const result = validateProductForm(values, currency);
    setErrors(result.errors ?? {});
    if (result.data) {
      onSubmit(result.data, values);
      return;
    }
    // Take the reader to the first field that needs attention.
    requestAnimationFrame(() => {
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    });
  };

  const currencyLabel = currency.toUpperCase();
  const variantsError = errors.variants;

  return (
    <form ref={formRef} onSubmit={submit} noValidate aria-label="Product">
      <Stack gap="lg">
        <SectionCard title="Product">
          <TextInput
            label="Title"
            required
            value={values.title}
            onChange={(event) => set('title', event.currentTarget.value)}
            error={errorAt('title')}
            aria-invalid={errorAt('title') ? true : undefined}
          />
          <Textarea
            label="Description"
            rows={5}
            resize="vertical"
            value={values.description}
            onChange={(event) => set('description', event.currentTarget.value)}
            error={errorAt('description')}
            aria-invalid={errorAt('description') ? true : undefined}
          />
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
            <TextInput
              label="Brand"
              value={values.brand}
              onChange={(event) => set('brand', event.currentTarget.value)}
              error={errorAt('brand')}
              aria-invalid={errorAt('brand') ? true : undefined}
            />
            <TextInput
              label="Product type"
              placeholder="e.g. Shirts"
              value={values.productType}
              onChange={(event) => set('productType', event.currentTarget.value)}
              error={errorAt('productType')}
              aria-invalid={errorAt('productType') ? true : undefined}
            />
            <Select
              label="Status"
              data={PRODUCT_STATUSES.map((status) => ({ value: status, label: PRODUCT_STATUS_LABELS[status] }))}
              value={values.status}
              allowDeselect={false}
              onChange={(value) => set('status', (value ?? 'active') as ProductStatus)}
            />
          </SimpleGrid>
        </SectionCard>
        <SectionCard title="Images">
          <ImageUploader
            images={values.images}
            onChange={(images) => setValues((current) => ({ ...current, images }))}
            onBusyChange={setUploading}
            error={errorAt('images')}
          />
        </SectionCard>
        <SectionCard
          title="Variants"
          description={`Each variant is a sellable unit with its own SKU. Prices in ${currencyLabel}.`}
          actions={
            <Button
              size="xs"
              variant="default"
              disabled={values.variants.length >= MAX_VARIANTS_PER_PRODUCT}
              onClick={() => set('variants', [...values.variants, emptyVariantRow()])}
            >
              Add variant
            </Button>
          }
        >
          {variantsError ? (
            <Text size="sm" c="red" role="alert">
              {variantsError}
            </Text>
          ) : null}
          <Table.ScrollContainer minWidth={900}>
            <Table aria-label="Variants" verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">SKU *</Table.Th>
                  <Table.Th scope="col">ALU</Table.Th>
                  <Table.Th scope="col">Barcode</Table.Th>
                  <Table.Th scope="col">Variant title</Table.Th>
                  <Table.Th scope="col">Price *</Table.Th>
                  <Table.Th scope="col">Compare-at price</Table.Th>
                  <Table.Th scope="col">
                    <VisuallyHidden>Remove</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {values.variants.map((row, index) => {
                  const n = index + 1;
                  const field = (name: keyof Omit<VariantRow, 'key' | 'id'>, label: string, extra = {}) => {
                    const error = errorAt(`variants.${index}.${name}`);
                    return (
                      <TextInput
                        aria-label={`${label} of variant ${n}`}
                        value={row[name]}
                        onChange={(event) => setVariant(index, name, event.currentTarget.value)}
                        error={error}
                        aria-invalid={error ? true : undefined}
                        size="xs"
                        {...extra}
                      />
                    );
                  };
                  const money = {
                    inputMode: 'decimal',
                    leftSection: <Text size="xs">{currencyLabel}</Text>,
                    leftSectionWidth: 40,
                  };
                  return (
                    <Table.Tr key={row.key}>
                      <Table.Td>{field('sku', 'SKU')}</Table.Td>
                      <Table.Td>{field('alu', 'ALU')}</Table.Td>
                      <Table.Td>{field('barcode', 'Barcode')}</Table.Td>
                      <Table.Td>{field('title', 'Variant title')}</Table.Td>
                      <Table.Td>{field('price', 'Price', money)}</Table.Td>
                      <Table.Td>{field('compareAtPrice', 'Compare-at price', money)}</Table.Td>
                      <Table.Td>
                        <Tooltip label="Remove this variant">
                          <ActionIcon
                            variant="subtle"
                            color="red"
                            aria-label={`Remove variant ${n}`}
                            disabled={values.variants.length === 1}
                            onClick={() =>
                              set(
                                'variants',
                                values.variants.filter((_, i) => i !== index),
                              )
                            }
                          >
                            ×
                          </ActionIcon>
                        </Tooltip>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </SectionCard>
        {saveError ? (
          <Alert color="red" variant="light" title="Could not save the product" role="alert">
            {errorMessage(saveError)}
          </Alert>
        ) : null}
        {submitted && Object.keys(errors).length > 0 ? (
          <Text size="sm" c="red">
            Some fields need attention.
          </Text>
        ) : null}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={saving} disabled={uploading}>
            {uploading ? 'Waiting for uploads…' : submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
