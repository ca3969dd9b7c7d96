// The metrics module's entries of the tenant-isolation harness (test/isolation.ts). Test code only. The metric
// calls take no row id (`metric/{id}` names a figure), so the check is that B's figures hold nothing of A's.
import { randomBytes } from 'node:crypto';
import type { MetricFigure, Metrics } from '@switchyard/contracts';
import { expect } from 'vitest';
import type { OwnRowOperation, World } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { orderLines, orders } from '../orders/orders.tables.ts';
import { recordOrderMetrics } from './metrics.record.ts';

/** An order of A's, in A's rollups; its SKU is the marker. */
async function soldByA(w: World) {
  const marker = `SKU-A-${randomBytes(5).toString('hex')}`;
  const id = newId('ord');
  const now = new Date();
  await w.t.services.db.transaction(async (tx) => {
    await tx.insert(orders).values({
      id,
      accountId: w.a.accountId,
      externalId: `ext-${marker}`,
      number: marker,
      status: 1,
      currency: 'USD',
      total: 4321,
      placedAt: now,
      providerUpdatedAt: now,
    });
    await tx.insert(orderLines).values({
      id: newId('oli'),
      accountId: w.a.accountId,
      orderId: id,
      position: 0,
      externalId: 'l1',
      sku: marker,
      title: 'Tee',
      quantity: 3,
      unitPrice: 1440,
    });
    await recordOrderMetrics(tx, w.a.accountId, id);
  });
  return marker;
}

export const metricsOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'metrics.get, metrics.one, GET metrics, metric/{id} and v1/v2 new-metrics (API key) show B none of A’s sales',
    async run(w) {
      const marker = await soldByA(w);
      const mine = await trpcOver(w.t.app, w.a.headers).query<Metrics>('metrics.get', {});
      expect(mine.data?.topSkus.map((s) => s.sku)).toContain(marker);
      const api = trpcOver(w.t.app, w.b.headers);
      const theirs = await api.query<Metrics>('metrics.get', { timeframe: '1y' });
      expect(theirs.data?.totals).toMatchObject({ sales: 0, orders: 0, units: 0 });
      expect(JSON.stringify(theirs.data)).not.toContain(marker);
      const one = await api.query<MetricFigure>('metrics.one', { id: 'top_skus' });
      expect(one.data?.breakdown).toEqual([]);
      const calls = [
        { url: '/api/frontend/metrics', headers: w.b.headers },
        { url: '/api/frontend/metric/sales', headers: w.b.headers },
        { url: '/api/frontend/metric/top_skus', headers: w.b.headers },
        { url: '/api/v1/new-metrics', headers: w.b.apiKeyHeaders },
        { url: '/api/v2/new-metrics?timeframe=1y&granularity=month', headers: w.b.apiKeyHeaders },
      ];
      for (const call of calls) {
        const res = await w.t.app.inject(call);
        expect(res.statusCode, call.url).toBe(200);
        expect(res.body, call.url).not.toContain(marker);
        expect(res.body, call.url).not.toContain('4321');
      }
    },
  },
];
