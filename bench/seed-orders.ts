// Gives one account BENCH_LIST_ORDERS orders (default 100,000) straight into the database with one set-based
// statement (generate_series), for the `/orders/` list and search figures of bench/orders.ts: not through
// ingest (which bench/orders.ts measures on its own). Run while the server is stopped (PGlite is one
// process's): `node --import tsx bench/seed-orders.ts <accountId>` with DATA_DIR or DATABASE_URL set.
// Statuses are spread as a shop's history is (most fulfilled, a tenth open), over two years, 500 customers,
// 2,000 SKUs. Prints one JSON line { accountId, orders, ms }.
import { sql } from 'drizzle-orm';
import { openDatabase } from '../apps/server/src/db/client.ts';

const accountId = process.argv[2];
if (!accountId) throw new Error('usage: seed-orders.ts <accountId>');
const target = Number(process.env.BENCH_LIST_ORDERS ?? 100_000);
if (!Number.isInteger(target) || target <= 0) throw new Error('BENCH_LIST_ORDERS must be a positive whole number');

const database = await openDatabase(
  process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir: process.env.DATA_DIR ?? './data' },
);
const started = performance.now();
try {
  const tag = Date.now().toString(36);
  const chunk = 100_000;
  for (let from = 1; from <= target; from += chunk) {
    const to = Math.min(target, from + chunk - 1);
    await database.db.execute(sql`
      insert into orders (id, account_id, external_id, number, status, fulfillment_type, customer_name, customer_email,
        currency, subtotal, total, financial_status, item_count, search_text, placed_at, provider_updated_at)
      select 'ord_bench_' || ${tag} || '_' || lpad(g::text, 8, '0'), ${accountId}, 'bench-' || ${tag} || '-' || g,
             '#' || (100000 + g), s.status, (array['ship','ship','ship','pickup'])[1 + g % 4],
             c.first || ' ' || c.last, lower(c.first || '.' || c.last || (g % 500) || '@example.com'),
             'USD', 1000 + g % 20000, 1000 + g % 20000, 'paid', 1 + g % 3,
             lower('#' || (100000 + g) || ' ' || c.first || ' ' || c.last || ' ' || c.first || '.' || c.last || (g % 500)
               || '@example.com sku-' || lpad((g % 2000)::text, 5, '0')),
             now() - make_interval(mins => (${target}::int - g) * (1051200.0 / ${target}::int)::int),
             now() - make_interval(mins => (${target}::int - g) * (1051200.0 / ${target}::int)::int)
      from generate_series(${from}::int, ${to}::int) g
      cross join lateral (select case when g % 10 = 0 then 1 when g % 10 = 1 then 2 when g % 20 = 2 then 7
                                      when g % 20 = 12 then 8 else 3 end as status) s
      cross join lateral (select (array['Ada','Grace','Alan','Katherine','Linus','Margaret','Dennis','Barbara',
                                        'Edsger','Frances'])[1 + g % 10] as first,
                                 (array['Lovelace','Hopper','Turing','Johnson','Torvalds','Hamilton','Ritchie',
                                        'Liskov','Dijkstra','Allen'])[1 + (g / 10) % 10] || (g / 100) % 5 as last) c`);
  }
  // As a table that has been in use: vacuumed (index-only scans see the visibility map) and analysed.
  await database.db.execute(sql`vacuum analyze orders`);
  process.stdout.write(
    `${JSON.stringify({ accountId, orders: target, ms: Math.round(performance.now() - started) })}\n`,
  );
} finally {
  await database.close();
}
