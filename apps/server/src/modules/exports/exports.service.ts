// Catalog and stock exports: CSV files streamed from the database in keyset pages (by SKU), so an export
// of any size holds one page in memory, and the v1 simple inventory report.
import { pipeline, Readable } from 'node:stream';
import { ALU_COLUMNS, CATALOG_INVENTORY_COLUMNS, type InventorySimpleReport } from '@switchyard/contracts';
import { stringify } from 'csv-stringify';
import { and, asc, count, eq, gt, inArray, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { Actor } from '../../trpc/context.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { products, variants } from '../products/products.tables.ts';

type Owner = Pick<Actor, 'accountId'>;

/** Rows read per query; a page and its levels are all an export holds at once. */
export const EXPORT_PAGE_SIZE = 2000;

export interface ExportOptions {
  pageSize?: number;
  /** Called with the number of variants each page read (tests watch the pages go by). */
  onPage?: (rows: number) => void;
  /** Only these SKUs. */
  skus?: string[];
}

export interface CsvExport {
  filename: string;
  stream: Readable;
}

interface ExportLocation {
  id: string;
  storeId: string;
  enabled: boolean;
}

interface VariantRow {
  id: string;
  productId: string;
  sku: string;
  alu: string | null;
  barcode: string | null;
  variantTitle: string;
  price: number;
  productTitle: string;
  brand: string | null;
  productType: string | null;
}

interface Level {
  onHand: number;
  reserved: number;
}

/** The account's locations by store id. */
async function exportLocations(db: Db, owner: Owner): Promise<ExportLocation[]> {
  const rows = await accountLocations(db, owner.accountId, ['storeId']);
  return rows.map((l) => ({ id: l.id, storeId: l.storeId, enabled: l.enabled }));
}

function variantFilter(owner: Owner, skus?: string[]): SQL | undefined {
  return and(eq(variants.accountId, owner.accountId), skus?.length ? inArray(variants.sku, skus) : undefined);
}

const variantColumns = {
  id: variants.id,
  productId: variants.productId,
  sku: variants.sku,
  alu: variants.alu,
  barcode: variants.barcode,
  variantTitle: variants.title,
  price: variants.price,
};

/** The products of a page of variants, by id. */
async function productsOf(db: Db, owner: Owner, productIds: string[]) {
  const rows = await db
    .select({ id: products.id, title: products.title, brand: products.brand, productType: products.productType })
    .from(products)
    .where(and(eq(products.accountId, owner.accountId), inArray(products.id, productIds)));
  return new Map(rows.map((r) => [r.id, r]));
}

/** Levels of a page of variants: variant id → location id → level. */
async function levelsOf(db: Db, owner: Owner, variantIds: string[]): Promise<Map<string, Map<string, Level>>> {
  const byVariant = new Map<string, Map<string, Level>>();
  if (variantIds.length === 0) return byVariant;
  const rows = await db
    .select({
      variantId: inventoryLevels.variantId,
      locationId: inventoryLevels.locationId,
      onHand: inventoryLevels.onHand,
      reserved: inventoryLevels.reserved,
    })
    .from(inventoryLevels)
    .where(and(eq(inventoryLevels.accountId, owner.accountId), inArray(inventoryLevels.variantId, variantIds)));
  for (const r of rows) {
    let levels = byVariant.get(r.variantId);
    if (!levels) {
      levels = new Map();
      byVariant.set(r.variantId, levels);
    }
    levels.set(r.locationId, { onHand: r.onHand, reserved: r.reserved });
  }
  return byVariant;
}

/**
 * The account's variants in SKU order, a page at a time, each with its levels. Keyset paging (sku > last)
 * on the (account, sku) unique index: every page costs the same, however deep.
 */
export async function* variantPages(
  db: Db,
  owner: Owner,
  options: ExportOptions = {},
): AsyncGenerator<{ variant: VariantRow; levels: Map<string, Level> }[]> {
  const pageSize = options.pageSize ?? EXPORT_PAGE_SIZE;
  let after: string | null = null;
  for (;;) {
    // The variants alone, so the page is a range of the (account, sku) index however deep it is; their
    // products and levels are then read by id.
    const rows = await db
      .select(variantColumns)
      .from(variants)
      .where(and(variantFilter(owner, options.skus), after === null ? undefined : gt(variants.sku, after)))
      .orderBy(asc(variants.sku))
      .limit(pageSize);
    if (rows.length === 0) return;
    options.onPage?.(rows.length);
    const [byProduct, levels] = await Promise.all([
      productsOf(db, owner, [...new Set(rows.map((v) => v.productId))]),
      levelsOf(
        db,
        owner,
        rows.map((v) => v.id),
      ),
    ]);
    const page: VariantRow[] = rows.map((v) => {
      const product = byProduct.get(v.productId);
      return {
        ...v,
        productTitle: product?.title ?? '',
        brand: product?.brand ?? null,
        productType: product?.productType ?? null,
      };
    });
    yield page.map((variant) => ({ variant, levels: levels.get(variant.id) ?? new Map() }));
    if (rows.length < pageSize) return;
    after = (rows[rows.length - 1] as VariantRow).sku;
  }
}

/** Records to CSV, pulled only as fast as the reader takes them (back-pressure through the pipeline). */
function toCsv(columns: string[], records: AsyncIterable<unknown[]>): Readable {
  // escape_formulas: a cell starting with = + - @ is not run as a formula when the file opens in a spreadsheet.
  const csv = stringify({ header: true, columns, escape_formulas: true });
  pipeline(Readable.from(records), csv, () => {
    // An error ends the response early; the pipeline has already destroyed both streams.
  });
  return csv;
}

async function* flatten<T, R>(pages: AsyncIterable<T[]>, map: (item: T) => R): AsyncGenerator<R> {
  for await (const page of pages) for (const item of page) yield map(item);
}

/** Minor units → a decimal amount in the currency's own number of decimals (USD 1999 → "19.99"). */
export function formatMinor(amount: number, currency: string): string {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // An unknown currency code: two decimals.
  }
  return (amount / 10 ** digits).toFixed(digits);
}

async function currencyOf(db: Db, owner: Owner): Promise<string> {
  const [row] = await db.select({ currency: accounts.currency }).from(accounts).where(eq(accounts.id, owner.accountId));
  return row?.currency ?? 'USD';
}

const today = (now: Date) => now.toISOString().slice(0, 10);

/**
 * frontend `export/catalogInventory`: every variant with its catalog fields, on hand and reserved at each
 * location (columns by store id), and the total available: on hand − reserved (never below 0) summed over
 * the enabled locations.
 */
export async function exportCatalogInventory(
  db: Db,
  owner: Owner,
  options: ExportOptions = {},
  now = new Date(),
): Promise<CsvExport> {
  const [locs, currency] = await Promise.all([exportLocations(db, owner), currencyOf(db, owner)]);
  const columns = [
    ...CATALOG_INVENTORY_COLUMNS,
    ...locs.flatMap((l) => [`${l.storeId} on hand`, `${l.storeId} reserved`]),
    'total available',
  ];
  const records = flatten(variantPages(db, owner, options), ({ variant: v, levels }) => {
    let available = 0;
    const perLocation: number[] = [];
    for (const l of locs) {
      const level = levels.get(l.id);
      perLocation.push(level?.onHand ?? 0, level?.reserved ?? 0);
      if (level && l.enabled) available += Math.max(0, level.onHand - level.reserved);
    }
    return [
      v.sku,
      v.alu ?? '',
      v.barcode ?? '',
      v.productTitle,
      v.variantTitle,
      v.brand ?? '',
      v.productType ?? '',
      formatMinor(v.price, currency),
      ...perLocation,
      available,
    ];
  });
  return { filename: `catalog-inventory-${today(now)}.csv`, stream: toCsv(columns, records) };
}

/** The title a single line names a variant by: "Product — Variant", or the product's alone. */
function fullTitle(v: VariantRow): string {
  const variant = v.variantTitle.trim();
  return variant && variant !== 'Default Title' ? `${v.productTitle} — ${variant}` : v.productTitle;
}

/** frontend `export/alu`: sku, alu, barcode, title. */
export async function exportAlu(db: Db, owner: Owner, options: ExportOptions = {}, now = new Date()) {
  const records = flatten(variantPages(db, owner, options), ({ variant: v }) => [
    v.sku,
    v.alu ?? '',
    v.barcode ?? '',
    fullTitle(v),
  ]);
  return { filename: `alu-${today(now)}.csv`, stream: toCsv([...ALU_COLUMNS], records) } satisfies CsvExport;
}

export const parseSkus = (skus: string | undefined) =>
  skus
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** v1 `reports/catalog/inventory/simple` as CSV: sku, on hand per location store id, total; every row. */
export async function inventorySimpleCsv(
  db: Db,
  owner: Owner,
  query: { skus?: string | undefined },
  options: ExportOptions = {},
  now = new Date(),
): Promise<CsvExport> {
  const locs = await exportLocations(db, owner);
  const skus = parseSkus(query.skus);
  const records = flatten(variantPages(db, owner, { ...options, ...(skus ? { skus } : {}) }), ({ variant, levels }) => {
    const onHand = locs.map((l) => levels.get(l.id)?.onHand ?? 0);
    return [variant.sku, ...onHand, onHand.reduce((a, b) => a + b, 0)];
  });
  return {
    filename: `inventory-simple-${today(now)}.csv`,
    stream: toCsv(['sku', ...locs.map((l) => l.storeId), 'total'], records),
  };
}

/** v1 `reports/catalog/inventory/simple` as JSON: a page of SKUs with on hand per location and the total. */
export async function inventorySimpleReport(
  db: Db,
  owner: Owner,
  query: { limit: number; offset: number; skus?: string | undefined },
): Promise<InventorySimpleReport> {
  const locs = await exportLocations(db, owner);
  const where = variantFilter(owner, parseSkus(query.skus));
  const [page, [total]] = await Promise.all([
    db
      .select({ id: variants.id, sku: variants.sku })
      .from(variants)
      .where(where)
      .orderBy(asc(variants.sku))
      .limit(query.limit)
      .offset(query.offset),
    db.select({ n: count() }).from(variants).where(where),
  ]);
  const levels = await levelsOf(
    db,
    owner,
    page.map((v) => v.id),
  );
  return {
    locations: locs.map((l) => l.storeId),
    results: page.map((v) => {
      const byStore = Object.fromEntries(locs.map((l) => [l.storeId, levels.get(v.id)?.get(l.id)?.onHand ?? 0]));
      return {
        sku: v.sku,
        locations: byStore,
        total: Object.values(byStore).reduce((a, b) => a + b, 0),
      };
    }),
    total: total?.n ?? 0,
    limit: query.limit,
    offset: query.offset,
  };
}
