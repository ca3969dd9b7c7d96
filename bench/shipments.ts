// Shipment benchmarks (issue 15), run by `npm run bench` after bench/orders.ts (or alone: `npm run bench:shipments`).
// See bench/README.md. In one process: the app (PGlite in memory, the job workers running) driven through its
// REST routes with inject(), and the sandbox on a port (the Shopify and carrier simulators over real HTTP).
// - label: rates + buy + label PDF for one parcel of a Shopify order (v2 POST orders/{id}/shipments, POST
//   .../shipments/buy, frontend POST shipping/getShippingLabel), one order after another;
// - visible: from the buy request until the Shopify simulator's order shows the tracking number (the write-back
//   job's fulfillmentCreate, read back through Shopify's GraphQL with the shop's token).
// Figures go to bench/results/latest.json under "shipments". A benchmark measures and never asserts a time.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { startJobs } from '../apps/server/src/bootstrap.ts';
import type { ChannelCredentials } from '../apps/server/src/connectors/types.ts';
import { decryptJson } from '../apps/server/src/lib/crypto.ts';
import { newId } from '../apps/server/src/lib/ids.ts';
import { connectorFor } from '../apps/server/src/modules/channels/channels.service.ts';
import { channels } from '../apps/server/src/modules/channels/channels.tables.ts';
import { applyMovements } from '../apps/server/src/modules/inventory/ledger.ts';
import { locations } from '../apps/server/src/modules/locations/locations.tables.ts';
import { importOrders } from '../apps/server/src/modules/orders/orders.import.ts';
import { orders } from '../apps/server/src/modules/orders/orders.tables.ts';
import { listings, products, variants } from '../apps/server/src/modules/products/products.tables.ts';
import { createTestApp } from '../apps/server/test/app.ts';
import { connectSandboxChannel } from '../apps/server/test/channels.ts';
import { createSignedInAccount } from '../apps/server/test/factories.ts';
import { startTestSandbox } from '../apps/server/test/sandbox.ts';
import { benchDatabaseUrl } from './database-url.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsFile = join(root, 'bench', 'results', 'latest.json');
const LABELS = Number(process.env.BENCH_SHIP_LABELS ?? 60);
const SHOP = 'bench-shipments';
const POSTGRES = benchDatabaseUrl();
/** Which databases to run on: `pglite,postgres` (default), or one of them. */
const ON = (process.env.BENCH_SHIPMENTS_ON ?? 'pglite,postgres').split(',');
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function summary(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? Number.NaN;
  return {
    count: sorted.length,
    p50Ms: round(at(0.5)),
    p95Ms: round(at(0.95)),
    p99Ms: round(at(0.99)),
    maxMs: round(sorted.at(-1) ?? Number.NaN),
  };
}

async function runOn(kind: 'pglite' | 'postgres') {
  if (kind === 'postgres') process.env.TEST_DATABASE_URL = POSTGRES;
  else delete process.env.TEST_DATABASE_URL;
  const sandbox = await startTestSandbox({ products: 6, seed: 21 });
  const t = await createTestApp({ sandboxUrl: sandbox.url, env: { LOG_LEVEL: 'warn' } });
  const queue = await startJobs(t.services, { work: true });
  try {
    const tenant = await createSignedInAccount(t.services);
    const channel = await connectSandboxChannel(t, tenant, 'shopify', SHOP);
    const rowOf = async () =>
      (
        await t.services.db.select().from(channels).where(eq(channels.id, channel.id))
      )[0] as typeof channels.$inferSelect;
    // Our store is the shop's first location, with a street address to ship from.
    const row = await rowOf();
    const first = row.settings?.channel?.locationMap[0];
    const storeId = 'BENCH-1';
    const storeLocation = newId('loc');
    await t.services.db.insert(locations).values({
      id: storeLocation,
      accountId: tenant.accountId,
      name: 'Bench store',
      storeId,
      address: { address1: '1 Main St', city: 'Brooklyn', province: 'NY', zip: '11201', country: 'US' },
    });
    const settings = structuredClone(row.settings) as NonNullable<typeof row.settings>;
    settings.channel.locationMap = settings.channel.locationMap.map((m, i) => ({
      ...m,
      storeId: i === 0 ? storeId : null,
      feeds: i === 0,
    }));
    await t.services.db.update(channels).set({ settings }).where(eq(channels.id, channel.id));
    // The catalog, as an import leaves it, and plenty of stock at our store.
    const connector = connectorFor(t.services, await rowOf());
    const skus: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await connector.listProducts(cursor);
      for (const product of page.items) {
        const productId = newId('prd');
        await t.services.db
          .insert(products)
          .values({ id: productId, accountId: tenant.accountId, title: product.title });
        for (const v of product.variants) {
          if (!v.sku) continue;
          const variantId = newId('var');
          await t.services.db
            .insert(variants)
            .values({ id: variantId, accountId: tenant.accountId, productId, sku: v.sku, title: v.title });
          await t.services.db.insert(listings).values({
            id: newId('lst'),
            accountId: tenant.accountId,
            channelId: channel.id,
            variantId,
            externalProductId: product.externalId,
            externalVariantId: v.externalId,
            inventoryItemId: v.inventoryItemId,
          });
          await t.services.db.transaction((tx) =>
            applyMovements(tx, tenant.accountId, [
              { variantId, locationId: storeLocation, setTo: 100_000, reason: 'import', source: 'bench' },
            ]),
          );
          skus.push(v.sku);
        }
      }
      cursor = page.nextCursor;
    } while (cursor);
    const creds = decryptJson<ChannelCredentials>(
      t.services.credentialsKey,
      (await rowOf()).credentials as never,
      channel.id,
    );
    const trackingAtShopify = async (orderGid: string): Promise<string[]> => {
      const res = await fetch(`${sandbox.url}/shopify/${SHOP}/admin/api/2025-01/graphql.json`, {
        method: 'POST',
        headers: { 'x-shopify-access-token': creds.accessToken, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'query($id: ID!) { order(id: $id) { fulfillments { trackingInfo { number } } } }',
          variables: { id: orderGid },
        }),
      });
      const body = (await res.json()) as {
        data?: { order?: { fulfillments: { trackingInfo: { number: string }[] }[] } };
      };
      return body.data?.order?.fulfillments.flatMap((f) => f.trackingInfo.map((i) => i.number)) ?? [];
    };
    const inject = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
      const res = await t.app.inject({ method, url, headers: tenant.headers, payload: payload as never });
      if (res.statusCode !== 200)
        throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
      return res;
    };

    log(
      `shipments bench on ${kind}: ${LABELS} labels, one after another (load ${os
        .loadavg()
        .map((l) => round(l, 2))
        .join(' ')})`,
    );
    const label: number[] = [];
    const parts = { rates: [] as number[], buy: [] as number[], pdf: [] as number[] };
    const visible: number[] = [];
    /** CPU time the process spent per label (app and simulators together): what the machine's load cannot inflate. */
    const cpu: number[] = [];
    for (let i = 0; i < LABELS; i++) {
      const placed = await fetch(`${sandbox.url}/_control/shopify/${SHOP}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          lines: [{ sku: skus[i % skus.length], quantity: 1 }],
          location: first?.externalLocationId,
          customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
        }),
      });
      const { orderId: externalId } = (await placed.json()) as { orderId: string };
      await importOrders(t.services, channel.id);
      const [order] = await t.services.db.select().from(orders).where(eq(orders.externalId, externalId));
      if (!order) throw new Error(`order ${externalId} was not imported`);
      if (!order.shippingAddress?.address1)
        await t.services.db
          .update(orders)
          .set({
            shippingAddress: {
              name: 'Ada',
              address1: '9 Pine St',
              city: 'Seattle',
              province: 'WA',
              zip: '98101',
              country: 'US',
            },
          })
          .where(eq(orders.id, order.id));
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      const created = await inject('POST', `/api/v2/orders/${order.id}/shipments`, { packages: [{ weight: 12 }] });
      const rated = performance.now();
      const shipment = created.json<{ id: string; rates: { key: string; cheapest: boolean }[] }>();
      const rate = shipment.rates.find((r) => r.cheapest)?.key;
      const bought = await inject('POST', `/api/v2/orders/${order.id}/shipments/buy`, {
        shipment_id: shipment.id,
        rate,
      });
      const boughtAt = performance.now();
      const pdf = await inject('POST', '/api/frontend/shipping/getShippingLabel', { shipment_id: shipment.id });
      if (!pdf.rawPayload.subarray(0, 5).equals(Buffer.from('%PDF-'))) throw new Error('the label is not a PDF');
      const end = performance.now();
      const used = process.cpuUsage(cpuStart);
      cpu.push((used.user + used.system) / 1000);
      label.push(end - start);
      parts.rates.push(rated - start);
      parts.buy.push(boughtAt - rated);
      parts.pdf.push(end - boughtAt);
      const tracking = bought.json<{ trackingCode: string }>().trackingCode;
      for (;;) {
        if ((await trackingAtShopify(externalId)).includes(tracking)) break;
        if (performance.now() - rated > 60_000) throw new Error(`tracking ${tracking} never showed at Shopify`);
        await sleep(10);
      }
      visible.push(performance.now() - rated);
    }
    const report = {
      at: new Date().toISOString(),
      loadAvg: os.loadavg().map((l) => round(l, 2)),
      database: kind === 'postgres' ? 'postgresql (server)' : 'pglite (in memory, in process)',
      labels: LABELS,
      ratesBuyLabel: summary(label),
      parts: { rates: summary(parts.rates), buy: summary(parts.buy), labelPdf: summary(parts.pdf) },
      cpuPerLabel: summary(cpu),
      shipToTrackingAtShopify: summary(visible),
    };
    log(
      `rates + buy + label PDF: p50 ${report.ratesBuyLabel.p50Ms} ms, p95 ${report.ratesBuyLabel.p95Ms} ms, p99 ${report.ratesBuyLabel.p99Ms} ms`,
    );
    log(
      `  rates p95 ${report.parts.rates.p95Ms} ms, buy p95 ${report.parts.buy.p95Ms} ms, label PDF p95 ${report.parts.labelPdf.p95Ms} ms`,
    );
    log(`  CPU per label (app and simulators): p50 ${report.cpuPerLabel.p50Ms} ms, p95 ${report.cpuPerLabel.p95Ms} ms`);
    log(
      `ship to tracking on the Shopify order: p50 ${report.shipToTrackingAtShopify.p50Ms} ms, p95 ${report.shipToTrackingAtShopify.p95Ms} ms`,
    );
    return report;
  } finally {
    await queue.stop({ timeoutMs: 5000 });
    await t.close();
    await sandbox.close();
  }
}

async function postgresAnswers() {
  const client = new pg.Client({ connectionString: POSTGRES, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const reports: Record<string, unknown> = {};
for (const kind of ON) {
  if (kind === 'postgres' && !(await postgresAnswers())) {
    log(`shipments bench: no PostgreSQL at ${POSTGRES}, skipped`);
    continue;
  }
  reports[kind] = await runOn(kind as 'pglite' | 'postgres');
}
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
const existing = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as object) : {};
writeFileSync(resultsFile, `${JSON.stringify({ ...existing, shipments: reports }, null, 2)}\n`);
