import {
  Button,
  Group,
  MultiSelect,
  NumberInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { type ProductsFilter, QTY_OPERATIONS, SYNC_STATUS_CODES, SYNC_STATUS_LABELS } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../../../lib/trpc.ts';
import { useDebouncedText } from '../../../../lib/use-debounced-text.ts';
import { hasFilters, useLocationOptions } from './product-api.ts';

export interface ProductFiltersProps {
  filter: ProductsFilter;
  /** Sets some filters (undefined clears one); the list goes back to its first page. */
  onChange: (patch: Partial<ProductsFilter>) => void;
  onClear: () => void;
}

const QTY_OPERATION_LABELS: Record<(typeof QTY_OPERATIONS)[number], string> = {
  '=': '= equal to',
  '>': '> more than',
  '<': '< less than',
  '>=': '≥ at least',
  '<=': '≤ at most',
};

const SYNC_STATUS_OPTIONS = SYNC_STATUS_CODES.map((code) => ({ value: String(code), label: SYNC_STATUS_LABELS[code] }));

const splitList = (value: string | undefined) =>
  value
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : [];
const joinList = (items: string[]) => {
  const list = [...new Set(items.map((item) => item.trim()).filter(Boolean))];
  return list.length > 0 ? list.join(',') : undefined;
};

/** Every filter of the products list (SPEC §2), each bound to its search param. */
export function ProductFilters({ filter, onChange, onClear }: ProductFiltersProps) {
  const trpc = useTRPC();
  const locations = useLocationOptions();
  const brands = useQuery(trpc.products.brands.queryOptions());
  const search = useDebouncedText(filter.search ?? '', (next) => onChange({ search: next || undefined }));
  const qty = useDebouncedText(filter.qty === undefined ? '' : String(filter.qty), (next) => {
    const parsed = next === '' ? undefined : Number(next);
    onChange({ qty: parsed !== undefined && Number.isInteger(parsed) ? parsed : undefined });
  });
  const codeLabel = filter.skuOrAlu === 'alu' ? 'ALUs' : 'SKUs';
  const selectedBrands = splitList(filter.brands);
  // A brand in the link that no product has any more still shows, so it can be removed.
  const brandOptions = [...new Set([...(brands.data ?? []), ...selectedBrands])];

  return (
    <Stack gap="sm" component="section" aria-label="Filters">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm" verticalSpacing="sm">
        <TextInput
          type="search"
          label="Search"
          placeholder="Title, SKU or barcode"
          value={search.text}
          onChange={(event) => search.setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') search.flush();
          }}
        />
        <Stack gap={4}>
          <Group gap="xs" justify="space-between" wrap="nowrap">
            <Text size="sm" fw={500} component="label" htmlFor="products-filter-codes">
              {codeLabel}
            </Text>
            <SegmentedControl
              size="xs"
              aria-label="Match codes against"
              value={filter.skuOrAlu}
              onChange={(value) => onChange({ skuOrAlu: value === 'alu' ? 'alu' : 'sku' })}
              data={[
                { value: 'sku', label: 'SKU' },
                { value: 'alu', label: 'ALU' },
              ]}
            />
          </Group>
          <TagsInput
            id="products-filter-codes"
            placeholder={`Type or paste ${codeLabel}, comma separated`}
            splitChars={[',', ' ', '\n']}
            clearable
            value={splitList(filter.skus)}
            onChange={(items) => onChange({ skus: joinList(items) })}
          />
        </Stack>
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <Select
            label="Quantity"
            aria-label="Quantity comparison"
            data={QTY_OPERATIONS.map((op) => ({ value: op, label: QTY_OPERATION_LABELS[op] }))}
            value={filter.qtyOperation}
            allowDeselect={false}
            onChange={(value) => onChange({ qtyOperation: (value ?? '=') as ProductsFilter['qtyOperation'] })}
            w={150}
          />
          <NumberInput
            aria-label="Quantity on hand"
            placeholder="Any"
            allowDecimal={false}
            value={qty.text}
            onChange={(value) => qty.setText(String(value))}
            onKeyDown={(event) => {
              if (event.key === 'Enter') qty.flush();
            }}
            style={{ flex: 1 }}
          />
        </Group>
        <Select
          label="Location"
          description={filter.location ? undefined : 'Quantities summed over all locations'}
          placeholder={locations.isPending ? 'Loading…' : 'All locations'}
          data={locations.data ?? []}
          value={filter.location ?? null}
          clearable
          searchable
          nothingFoundMessage={locations.isError ? 'Could not load locations' : 'No locations'}
          onChange={(value) => onChange({ location: value ?? undefined })}
        />
        <MultiSelect
          label="Brands"
          placeholder={selectedBrands.length > 0 ? undefined : brands.isPending ? 'Loading…' : 'Any brand'}
          data={brandOptions}
          value={selectedBrands}
          searchable
          clearable
          nothingFoundMessage={brands.isError ? 'Could not load brands' : 'No brands'}
          onChange={(items) => onChange({ brands: joinList(items) })}
        />
        <Select
          label="Sync status"
          placeholder="Any status"
          data={SYNC_STATUS_OPTIONS}
          value={filter.syncStatusCode === undefined ? null : String(filter.syncStatusCode)}
          clearable
          onChange={(value) => onChange({ syncStatusCode: value === null ? undefined : Number(value) })}
        />
        <Select
          label="Sync"
          placeholder="On or off"
          data={[
            { value: 'true', label: 'Sync on' },
            { value: 'false', label: 'Sync off' },
          ]}
          value={filter.sync ?? null}
          clearable
          onChange={(value) => onChange({ sync: (value ?? undefined) as ProductsFilter['sync'] })}
        />
        <Select
          label="On sale"
          placeholder="Any price"
          data={[
            { value: 'true', label: 'On sale' },
            { value: 'false', label: 'Not on sale' },
          ]}
          value={filter.sale ?? null}
          clearable
          onChange={(value) => onChange({ sale: (value ?? undefined) as ProductsFilter['sale'] })}
        />
      </SimpleGrid>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" fw={500} id="products-filter-type">
            Type
          </Text>
          <SegmentedControl
            size="xs"
            aria-labelledby="products-filter-type"
            value={filter.type}
            onChange={(value) => onChange({ type: value as ProductsFilter['type'] })}
            data={[
              { value: 'both', label: 'All' },
              { value: 'simple', label: 'Simple' },
              { value: 'variants', label: 'With variants' },
            ]}
          />
        </Group>
        {hasFilters(filter) ? (
          <Button variant="subtle" size="xs" onClick={onClear}>
            Clear filters
          </Button>
        ) : null}
      </Group>
    </Stack>
  );
}
