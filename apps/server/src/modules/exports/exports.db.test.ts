import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InventorySimpleReport } from '@switchyard/contracts';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { newId } from '../../lib/ids.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { insertProduct } from '../syncs/syncs.fixtures.ts';
import { exportCatalogInventory, formatMinor } from './exports.service.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

const BIG = 5200;

async function insertLocation(t: TestApp, accountId: string, storeId: string, enabled = true) {
  const id = newId('loc');
  await t.services.db.insert(locations).values({ id, accountId, name: `Store ${storeId}`, storeId, enabled });
  return id;
}

/** GETs over a real socket and answers the status, headers and the body's chunks as they arrived. */
function download(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; chunks: Buffer[] }>((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('exports', () => {
  let t: TestApp;
  let owner: Tenant;
  let other: Tenant;
  let base: string;
  const csv = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createSignedInAccount(t.services);
    other = await createSignedInAccount(t.services);
    const { db } = t.services;
    const north = await insertLocation(t, owner.accountId, 'north');
    const south = await insertLocation(t, owner.accountId, 'south');
    const closed = await insertLocation(t, owner.accountId, 'closed', false);
    const { variantIds } = await insertProduct(
      db,
      owner.accountId,
      { title: 'Linen shirt', brand: 'Weave', productType: 'Shirts' },
      [
        { sku: 'SHIRT-M', alu: 'ALU-M', barcode: '0001', title: 'M', price: 4999 },
        { sku: 'SHIRT-L', alu: null, barcode: null, title: 'L', price: 5000 },
      ],
    );
    await insertProduct(db, owner.accountId, { title: '=HYPERLINK("x")' }, [{ sku: 'ZZ-FORMULA', title: '' }]);
    await db.insert(inventoryLevels).values([
      {
        accountId: owner.accountId,
        variantId: variantIds['SHIRT-M'] as string,
        locationId: north,
        onHand: 7,
        reserved: 2,
      },
      {
        accountId: owner.accountId,
        variantId: variantIds['SHIRT-M'] as string,
        locationId: south,
        onHand: 1,
        reserved: 3,
      },
      {
        accountId: owner.accountId,
        variantId: variantIds['SHIRT-M'] as string,
        locationId: closed,
        onHand: 9,
        reserved: 0,
      },
      {
        accountId: owner.accountId,
        variantId: variantIds['SHIRT-L'] as string,
        locationId: south,
        onHand: 4,
        reserved: 0,
      },
    ]);
    // The other account's catalog must never show.
    await insertLocation(t, other.accountId, 'theirs');
    await insertProduct(db, other.accountId, { title: 'Not yours' }, [{ sku: 'SHIRT-SECRET' }]);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  it('downloads catalogInventory as a dated CSV with per-location columns and the total available', async () => {
    const res = await t.app.inject({ url: '/api/frontend/export/catalogInventory', headers: owner.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="catalog-inventory-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const [header] = res.body.split('\n');
    expect(header).toBe(
      'sku,alu,barcode,product title,variant title,brand,type,price,closed on hand,closed reserved,north on hand,north reserved,south on hand,south reserved,total available',
    );
    const rows = csv(res.body);
    expect(rows.map((r) => r.sku)).toEqual(['SHIRT-L', 'SHIRT-M', 'ZZ-FORMULA']);
    expect(rows[1]).toEqual({
      sku: 'SHIRT-M',
      alu: 'ALU-M',
      barcode: '0001',
      'product title': 'Linen shirt',
      'variant title': 'M',
      brand: 'Weave',
      type: 'Shirts',
      price: '49.99',
      'closed on hand': '9',
      'closed reserved': '0',
      'north on hand': '7',
      'north reserved': '2',
      'south on hand': '1',
      'south reserved': '3',
      // north 7 − 2 = 5; south 1 − 3 never below 0; the disabled store holds nothing for sale.
      'total available': '5',
    });
    expect(rows[0]).toMatchObject({
      alu: '',
      barcode: '',
      price: '50.00',
      'south on hand': '4',
      'total available': '4',
    });
    // A cell that would run as a spreadsheet formula is quoted away.
    expect(rows[2]?.['product title']).toBe('\'=HYPERLINK("x")');
    expect(res.body).not.toContain('SHIRT-SECRET');
  });

  it('downloads the ALU list and refuses a signed-out caller', async () => {
    const res = await t.app.inject({ url: '/api/frontend/export/alu', headers: owner.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/filename="alu-\d{4}-\d{2}-\d{2}\.csv"/);
    expect(csv(res.body)).toEqual([
      { sku: 'SHIRT-L', alu: '', barcode: '', title: 'Linen shirt — L' },
      { sku: 'SHIRT-M', alu: 'ALU-M', barcode: '0001', title: 'Linen shirt — M' },
      { sku: 'ZZ-FORMULA', alu: '', barcode: '', title: '\'=HYPERLINK("x")' },
    ]);
    const anonymous = await t.app.inject({ url: '/api/frontend/export/alu' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 401 });
  });

  it('answers the v1 simple inventory report as JSON pages, filtered by SKUs, or as CSV', async () => {
    const page = await t.app.inject({
      url: '/api/v1/reports/catalog/inventory/simple?limit=1&offset=1',
      headers: owner.headers,
    });
    expect(page.statusCode).toBe(200);
    expect(page.json<InventorySimpleReport>()).toEqual({
      locations: ['closed', 'north', 'south'],
      results: [{ sku: 'SHIRT-M', locations: { closed: 9, north: 7, south: 1 }, total: 17 }],
      total: 3,
      limit: 1,
      offset: 1,
    });
    const some = await t.app.inject({
      url: '/api/v1/reports/catalog/inventory/simple?skus=SHIRT-L,SHIRT-SECRET',
      headers: owner.headers,
    });
    expect(some.json<InventorySimpleReport>().results).toEqual([
      { sku: 'SHIRT-L', locations: { closed: 0, north: 0, south: 4 }, total: 4 },
    ]);
    const file = await t.app.inject({
      url: '/api/v1/reports/catalog/inventory/simple?format=csv',
      headers: owner.headers,
    });
    expect(file.headers['content-disposition']).toMatch(/filename="inventory-simple-/);
    expect(file.body.trim().split('\n')).toEqual([
      'sku,closed,north,south,total',
      'SHIRT-L,0,0,4,4',
      'SHIRT-M,9,7,1,17',
      'ZZ-FORMULA,0,0,0,0',
    ]);
  });

  it(`streams ${BIG} variants complete, in many chunks, reading the database a page at a time`, async () => {
    const big = await createSignedInAccount(t.services);
    const store = await insertLocation(t, big.accountId, 'main');
    const specs = Array.from({ length: BIG }, (_, i) => ({ sku: `BIG-${String(i).padStart(5, '0')}`, price: i }));
    const { variantIds } = await insertProduct(t.services.db, big.accountId, { title: 'Bulk' }, specs);
    const levels = Object.values(variantIds).map((variantId, i) => ({
      accountId: big.accountId,
      variantId,
      locationId: store,
      onHand: i % 10,
    }));
    for (let i = 0; i < levels.length; i += 1000) {
      await t.services.db.insert(inventoryLevels).values(levels.slice(i, i + 1000));
    }

    const res = await download(`${base}/api/frontend/export/catalogInventory`, big.headers);
    expect(res.status).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.chunks.length).toBeGreaterThan(3);
    const rows = csv(Buffer.concat(res.chunks).toString('utf8'));
    expect(rows).toHaveLength(BIG);
    expect(rows[0]).toMatchObject({ sku: 'BIG-00000', 'main on hand': '0', 'total available': '0' });
    expect(rows[BIG - 1]).toMatchObject({ sku: `BIG-0${BIG - 1}`, 'main on hand': String((BIG - 1) % 10) });
    expect(new Set(rows.map((r) => r.sku)).size).toBe(BIG);

    // Back-pressure: a reader that takes nothing makes the export read no further than a page or two.
    const pages: number[] = [];
    const file = await exportCatalogInventory(t.services.db, big, { pageSize: 500, onPage: (n) => pages.push(n) });
    await new Promise((r) => setTimeout(r, 300));
    expect(pages.length).toBeLessThanOrEqual(3);
    let lines = 0;
    for await (const chunk of file.stream) lines += String(chunk).split('\n').length - 1;
    expect(lines).toBe(BIG + 1);
    expect(pages).toHaveLength(Math.ceil(BIG / 500));
  });

  it('formats minor units in the currency’s decimals', () => {
    expect(formatMinor(1999, 'USD')).toBe('19.99');
    expect(formatMinor(1999, 'JPY')).toBe('1999');
    expect(formatMinor(5, 'EUR')).toBe('0.05');
  });
});
