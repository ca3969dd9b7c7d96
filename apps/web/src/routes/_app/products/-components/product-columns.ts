/**
 * The products list's columns. Title and SKU always show; the others are the merchant's choice, kept per
 * channel in the user's settings.columnsFilter (SPEC §3; catalog_integration_id = the channel id).
 */
export const PRODUCT_COLUMNS = [
  { key: 'image', label: 'Image' },
  { key: 'title', label: 'Product', fixed: true },
  { key: 'sku', label: 'SKU', fixed: true },
  { key: 'alu', label: 'ALU' },
  { key: 'barcode', label: 'Barcode' },
  { key: 'brand', label: 'Brand' },
  { key: 'productType', label: 'Type' },
  { key: 'status', label: 'Status' },
  { key: 'price', label: 'Price' },
  { key: 'compareAtPrice', label: 'Compare-at price' },
  { key: 'onHand', label: 'On hand' },
  { key: 'reserved', label: 'Reserved' },
  { key: 'syncStatus', label: 'Sync status' },
  { key: 'updatedAt', label: 'Updated' },
] as const satisfies readonly { key: string; label: string; fixed?: boolean }[];

export type ProductColumnKey = (typeof PRODUCT_COLUMNS)[number]['key'];

export const DEFAULT_PRODUCT_COLUMNS: readonly ProductColumnKey[] = [
  'image',
  'title',
  'sku',
  'brand',
  'price',
  'onHand',
  'syncStatus',
];

const KNOWN = new Set<string>(PRODUCT_COLUMNS.map((column) => column.key));
const FIXED = PRODUCT_COLUMNS.filter((column) => 'fixed' in column && column.fixed).map((column) => column.key);

/** The columns to show, in the list's order: the stored choice (unknown keys ignored) or the defaults. */
export function visibleColumns(stored: readonly string[] | undefined): Set<ProductColumnKey> {
  const chosen = stored ? stored.filter((key) => KNOWN.has(key)) : DEFAULT_PRODUCT_COLUMNS;
  return new Set<ProductColumnKey>([...FIXED, ...(chosen as ProductColumnKey[])]);
}
