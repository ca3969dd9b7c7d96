// Grows one account's catalog to BENCH_EXPORT_ROWS variants (default 100,000) with synthetic products,
// variants and stock levels at each of the account's locations, straight into the database with set-based
// SQL (generate_series), so the export benchmark (bench/sync.ts) can measure a 100,000-row CSV export without
// importing 100,000 variants through rate-limited simulators. Run while the server is stopped (PGlite is one
// process's): `node --import tsx bench/seed-export.ts <accountId>` with DATA_DIR or DATABASE_URL set.
// Prints one JSON line { accountId, variantsBefore, variantsAfter, locations, levelsAdded, ms }.
import { sql } from 'drizzle-orm';
import { openDatabase } from '../apps/server/src/db/client.ts';

const accountId = process.argv[2];
if (!accountId) throw new Error('usage: seed-export.ts <accountId>');
const target = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000);
if (!Number.isInteger(target) || target <= 0) throw new Error('BENCH_EXPORT_ROWS must be a positive whole number');

const database = await openDatabase(
  process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir: process.env.DATA_DIR ?? './data' },
);
const started = performance.now();
try {
  const count = async (table: string) => {
    const { rows } = await database.executeSql(`select count(*)::int as n from ${table} where account_id = $1`, [
      accountId,
    ]);
    return (rows[0] as { n: number }).n;
  };
  const before = await count('variants');
  const missing = Math.max(0, target - before);
  const locationRows = (
    await database.executeSql('select id from locations where account_id = $1 order by store_id', [accountId])
  ).rows as { id: string }[];
  const perProduct = 4;
  const products = Math.ceil(missing / perProduct);
  const tag = Date.now().toString(36);
  // One transaction of three set-based statements: products, their variants, a level per variant and location.
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into products (id, account_id, title, description, brand, product_type)
      select 'prd_bench_' || ${tag} || '_' || g, ${accountId}, 'Bench product ' || g, 'Synthetic, for the export benchmark.',
             (array['Northwind','Harbor & Pine','Cedar Works','Lumen Goods'])[1 + g % 4],
             (array['Apparel','Footwear','Home'])[1 + g % 3]
      from generate_series(1, ${products}::int) g`);
    await tx.execute(sql`
      insert into variants (id, account_id, product_id, sku, alu, barcode, title, price, position)
      select 'var_bench_' || ${tag} || '_' || g, ${accountId}, 'prd_bench_' || ${tag} || '_' || (1 + (g - 1) / ${perProduct}),
             'BENCH-' || ${tag} || '-' || lpad(g::text, 6, '0'), 'ALU-' || g, lpad(g::text, 13, '0'),
             (array['S','M','L','XL'])[1 + (g - 1) % ${perProduct}], 1000 + g % 9000, (g - 1) % ${perProduct}
      from generate_series(1, ${missing}::int) g`);
    for (const location of locationRows) {
      await tx.execute(sql`
        insert into inventory_levels (account_id, variant_id, location_id, on_hand, reserved)
        select ${accountId}, 'var_bench_' || ${tag} || '_' || g, ${location.id}, g % 41, case when g % 10 = 0 then 1 else 0 end
        from generate_series(1, ${missing}::int) g`);
    }
  });
  const after = await count('variants');
  process.stdout.write(
    `${JSON.stringify({
      accountId,
      variantsBefore: before,
      variantsAfter: after,
      locations: locationRows.length,
      levelsAdded: missing * locationRows.length,
      ms: Math.round(performance.now() - started),
    })}\n`,
  );
} finally {
  await database.close();
}
