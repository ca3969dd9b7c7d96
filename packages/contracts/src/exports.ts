import { z } from 'zod';

/**
 * Catalog and stock exports (issue 6). CSV files are streamed from the database in pages, so an export
 * never holds the whole catalog in memory.
 *
 * Calls:
 * - frontend `GET export/catalogInventory` → CSV: CATALOG_INVENTORY_COLUMNS, then "<store_id> on hand" and
 *   "<store_id> reserved" for every location (by store id), then "total available"
 * - frontend `GET export/alu` → CSV: ALU_COLUMNS
 * - v1 `GET reports/catalog/inventory/simple` (InventorySimpleQuery) → InventorySimpleReport (format json),
 *   or CSV: sku, one column per location store id (on hand), total (format csv, every row)
 */

export const CATALOG_INVENTORY_COLUMNS = [
  'sku',
  'alu',
  'barcode',
  'product title',
  'variant title',
  'brand',
  'type',
  'price',
] as const;
export const ALU_COLUMNS = ['sku', 'alu', 'barcode', 'title'] as const;

/** The exports the settings page offers, by the frontend path that downloads each. */
export const EXPORT_DOWNLOADS = [
  {
    path: 'export/catalogInventory',
    label: 'Catalog and stock',
    description:
      'Every variant with its SKU, ALU, barcode, titles, brand, type and price, the stock on hand and reserved at each location, and the total available.',
  },
  {
    path: 'export/alu',
    label: 'SKU and ALU list',
    description: 'Every variant’s SKU with its alternate lookup code (ALU), barcode and title.',
  },
] as const;
export type ExportPath = (typeof EXPORT_DOWNLOADS)[number]['path'];

export const InventorySimpleQuery = z.object({
  format: z.enum(['json', 'csv']).catch('json').default('json'),
  /** JSON only: the page; CSV always holds every row. */
  limit: z.coerce.number().int().min(1).max(1000).catch(100).default(100),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
  /** Only these SKUs (comma-separated). */
  skus: z.string().trim().max(5000).optional(),
});
export type InventorySimpleQuery = z.input<typeof InventorySimpleQuery>;

export const InventorySimpleRow = z.object({
  sku: z.string(),
  /** On hand by location store id (every location of the account, 0 where none is kept). */
  locations: z.record(z.string(), z.number().int()),
  /** On hand over all locations. */
  total: z.number().int(),
});
export type InventorySimpleRow = z.infer<typeof InventorySimpleRow>;

export const InventorySimpleReport = z.object({
  /** The account's location store ids, in column order. */
  locations: z.array(z.string()),
  results: z.array(InventorySimpleRow),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type InventorySimpleReport = z.infer<typeof InventorySimpleReport>;
