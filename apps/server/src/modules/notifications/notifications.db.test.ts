import type { NotificationList, NotificationSettings } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { publicUrl } from '../../config.ts';
import type { ProviderReturn } from '../../connectors/types.ts';
import { newId } from '../../lib/ids.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { channels, webhookEvents } from '../channels/channels.tables.ts';
import { processWebhookEvent } from '../channels/channels.webhooks.ts';
import { mailMessages } from '../mail/mail.tables.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';
import { recomputeFlags } from '../orders/orders.timeline.ts';
import { ingestReturn } from '../returns/returns.ingest.ts';
import { insertChannel, uniqueText } from '../syncs/syncs.fixtures.ts';
import { finishSync, recordSyncProgress, startSync } from '../syncs/syncs.records.ts';
import { DIGEST_TEMPLATE, pruneNotifications, sendDigests } from './notifications.digest.ts';
import { onDeadLetter } from './notifications.jobs.ts';
import { checkWaitingOrders, notifyPaymentFailed, notifyStockChanges } from './notifications.producers.ts';
import { notify } from './notifications.service.ts';
import { notifications } from './notifications.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

describe('notifications', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const api = (tenant: Tenant) => trpcOver(t.app, tenant.headers);
  const feed = async (tenant: Tenant, input: object = {}) => {
    const res = await api(tenant).query<NotificationList>('notifications.list', input);
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    return res.data as NotificationList;
  };
  const newTenant = () => createSignedInAccount(t.services);

  async function insertOrder(accountId: string, placedAt: Date, status = 1) {
    const id = newId('ord');
    const number = `#${uniqueText('N')}`;
    await t.services.db.insert(orders).values({
      id,
      accountId,
      externalId: `ext-${number}`,
      number,
      status,
      currency: 'USD',
      searchText: number.toLowerCase(),
      placedAt,
      providerUpdatedAt: placedAt,
    });
    return { id, number };
  }

  it('a sync run with failed items raises one notification; repeats of the same run type update it', async () => {
    const m = await newTenant();
    const channel = await insertChannel(t.services.db, m.accountId, 'shopify', 'Main Shopify');
    const failedRun = async () => {
      const id = await startSync(t.services.db, {
        accountId: m.accountId,
        channelId: channel.id,
        type: 'inventory_push',
        trigger: 'change',
      });
      await recordSyncProgress(t.services.db, id, m.accountId, {
        succeeded: 3,
        failures: [{ label: 'TEE-S @ S1', error: 'refused' }],
      });
      await finishSync(t.services.db, id);
      return id;
    };
    const first = await failedRun();
    let list = await feed(m);
    expect(list.unread).toBe(1);
    expect(list.results[0]).toMatchObject({
      type: 'sync_failed',
      title: 'Stock push with Main Shopify: 1 item failed',
      link: `/syncs/${first}`,
      count: 1,
    });
    const second = await failedRun();
    list = await feed(m);
    expect(list.total).toBe(1);
    expect(list.results[0]).toMatchObject({ count: 2, link: `/syncs/${second}` });

    // A run that succeeds says nothing.
    const ok = await startSync(t.services.db, {
      accountId: m.accountId,
      channelId: channel.id,
      type: 'catalog_import',
      trigger: 'manual',
    });
    await finishSync(t.services.db, ok);
    expect((await feed(m)).total).toBe(1);
  });

  it('once read, the same condition is a new notification', async () => {
    const m = await newTenant();
    await notify(t.services.db, m.accountId, {
      type: 'payment_failed',
      title: 'a',
      body: 'b',
      link: '/x',
      dedupeKey: 'k',
    });
    await notify(t.services.db, m.accountId, {
      type: 'payment_failed',
      title: 'a',
      body: 'b',
      link: '/x',
      dedupeKey: 'k',
    });
    expect((await feed(m)).results.map((n) => n.count)).toEqual([2]);
    const all = await api(m).mutation<{ updated: number }>('notifications.markAllRead');
    expect(all.data).toEqual({ updated: 1 });
    await notify(t.services.db, m.accountId, {
      type: 'payment_failed',
      title: 'a',
      body: 'b',
      link: '/x',
      dedupeKey: 'k',
    });
    const list = await feed(m);
    expect(list.total).toBe(2);
    expect(list.unread).toBe(1);
    expect((await feed(m, { unread: true })).results).toHaveLength(1);
  });

  it('a job that failed every retry names its channel and links to the Syncs screen', async () => {
    const m = await newTenant();
    const channel = await insertChannel(t.services.db, m.accountId, 'bigcommerce', 'BC store');
    await onDeadLetter(t.services)('orders.cancel', { channelId: channel.id }, new Error('502 from BigCommerce'));
    const [n] = (await feed(m)).results;
    expect(n).toMatchObject({ type: 'dead_letter', link: '/syncs' });
    expect(n?.title).toContain('BC store');
    expect(n?.body).toContain('502 from BigCommerce');
  });

  it('an order that becomes flagged raises one notification, on the transition only', async () => {
    const m = await newTenant();
    const order = await insertOrder(m.accountId, new Date());
    const lineId = newId('oli');
    await t.services.db.insert(orderLines).values({
      id: lineId,
      accountId: m.accountId,
      orderId: order.id,
      position: 0,
      externalId: 'l1',
      sku: 'TEE-S',
      title: 'Tee',
      quantity: 2,
    });
    await t.services.db.insert(orderAllocations).values({
      id: newId('oal'),
      accountId: m.accountId,
      orderId: order.id,
      lineId,
      quantity: 2,
      status: 4,
      reason: 'insufficient stock',
    });
    await t.services.db.transaction((tx) => recomputeFlags(tx, order.id));
    await t.services.db.transaction((tx) => recomputeFlags(tx, order.id));
    const list = await feed(m);
    expect(list.results).toHaveLength(1);
    expect(list.results[0]).toMatchObject({
      type: 'order_flagged',
      title: `Order ${order.number} is flagged`,
      link: `/orders/${order.id}`,
      count: 1,
    });
  });

  it('orders waiting longer than the threshold the merchant set raise one notification per new crossing', async () => {
    const m = await newTenant();
    const hour = 3_600_000;
    const now = new Date();
    const saved = await api(m).mutation<NotificationSettings>('notifications.updateSettings', { orderWaitHours: 4 });
    expect(saved.data?.orderWaitHours).toBe(4);
    await insertOrder(m.accountId, new Date(now.getTime() - 5 * hour));
    await insertOrder(m.accountId, new Date(now.getTime() - 3 * hour)); // not yet
    await insertOrder(m.accountId, new Date(now.getTime() - 9 * hour), 3); // fulfilled
    await checkWaitingOrders(t.services.db, now);
    let [n] = (await feed(m)).results;
    expect(n).toMatchObject({ type: 'order_waiting', title: '1 order is waiting more than 4 hours', count: 1 });
    // Nothing crossed since: nothing new.
    await checkWaitingOrders(t.services.db, new Date(now.getTime() + 30 * 60_000));
    expect((await feed(m)).results[0]?.lastAt).toEqual(n?.lastAt);
    // Two hours on, the second order crossed too.
    await checkWaitingOrders(t.services.db, new Date(now.getTime() + 2 * hour));
    const list = await feed(m);
    expect(list.total).toBe(1);
    [n] = list.results;
    expect(n).toMatchObject({ title: '2 orders are waiting more than 4 hours', count: 2 });
  });

  it('stock notifications fire on the transition to 0 or to the low-stock threshold, not on every push', async () => {
    const m = await newTenant();
    await api(m).mutation('notifications.updateSettings', { lowStockThreshold: 3 });
    const channel = { id: newId('chn'), name: 'Main Shopify' };
    await notifyStockChanges(t.services.db, m.accountId, channel, [
      { variantId: 'v1', sku: 'TEE-S', locationId: 'loc_gone', storeId: 'S1', before: 4, after: 0 },
      { variantId: 'v2', sku: 'TEE-M', locationId: 'loc_gone', storeId: 'S1', before: 10, after: 3 },
      { variantId: 'v3', sku: 'TEE-L', locationId: 'loc_gone', storeId: 'S1', before: 0, after: 0 },
      { variantId: 'v4', sku: 'TEE-XL', locationId: 'loc_gone', storeId: 'S1', before: null, after: 0 },
      { variantId: 'v5', sku: 'CAP', locationId: 'loc_gone', storeId: 'S1', before: 10, after: 4 },
      { variantId: 'v6', sku: 'SOCK', locationId: 'loc_gone', storeId: 'S1', before: 3, after: 2 },
    ]);
    const list = await feed(m);
    expect(list.results.map((n) => [n.type, n.title]).sort()).toEqual([
      ['stock_low', 'TEE-M is low on Main Shopify'],
      ['stock_out', 'TEE-S is out of stock on Main Shopify'],
    ]);
    const out = list.results.find((n) => n.type === 'stock_out');
    expect(decodeURIComponent(out?.link ?? '')).toBe(`/products/${channel.id}?filter={"search":"TEE-S"}`);
    // A location no longer there is named by its store id.
    expect(out?.body).toMatch(/^Available to sell fell to 0 at S1 \(4 → 0\):/);
  });

  it('an uninstalled app raises a channel notification with the webhook that disconnects it', async () => {
    const m = await newTenant();
    const channel = await insertChannel(t.services.db, m.accountId, 'shopify', 'Web shop');
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
    const id = newId('whe');
    await t.services.db.insert(webhookEvents).values({
      id,
      provider: 'shopify',
      eventId: uniqueText('evt'),
      topic: 'app/uninstalled',
      shopExternalId: row?.externalId ?? '',
      accountId: m.accountId,
      channelId: channel.id,
      payload: {},
      occurredAt: new Date(Date.now() + 5000),
    });
    await processWebhookEvent(t.services, id);
    const [n] = (await feed(m)).results;
    expect(n).toMatchObject({
      type: 'channel_disconnected',
      title: 'Web shop is disconnected',
      link: `/channels/${channel.id}/advanced`,
    });
  });

  it('a return from a channel raises one notification, however often it is delivered', async () => {
    const m = await newTenant();
    const channel = await insertChannel(t.services.db, m.accountId, 'shopify', 'Web shop');
    const at = new Date().toISOString();
    const ret: ProviderReturn = {
      externalId: 'gid://shopify/Return/1',
      orderExternalId: null,
      createdAt: at,
      updatedAt: at,
      status: 'pending',
      receiptNumber: '#1001-R1',
      billName: null,
      currency: 'USD',
      tax: 0,
      adjustment: 0,
      total: 0,
      items: [],
    };
    const from = { id: channel.id, accountId: m.accountId, type: 'shopify' as const, name: 'Web shop' };
    await ingestReturn(t.services, from, ret);
    await ingestReturn(t.services, from, ret);
    const list = await feed(m);
    expect(list.results).toHaveLength(1);
    expect(list.results[0]).toMatchObject({
      type: 'return_created',
      title: 'New return #1001-R1',
      link: `/returns?external_id=${encodeURIComponent('gid://shopify/Return/1')}`,
    });
    expect(list.results[0]?.body).toContain('from Web shop');
  });

  it('marks one read, refuses ids of another account, and counts unread for the bell', async () => {
    const a = await newTenant();
    const b = await newTenant();
    await notifyPaymentFailed(t.services.db, a.accountId, { reason: 'card declined.', link: '/settings/account' });
    await notify(t.services.db, a.accountId, { type: 'return_created', title: 'r', body: 'b', link: '/returns' });
    const [first] = (await feed(a)).results;
    const stolen = await api(b).mutation('notifications.markRead', { ids: [first?.id] });
    expect(stolen.status).toBe(404);
    expect((await api(a).query('notifications.unreadCount')).data).toEqual({ unread: 2 });
    const bad = await api(a).mutation('notifications.markRead', { ids: [] });
    expect(bad.status).toBe(400);
    const read = await api(a).mutation('notifications.markRead', { ids: [first?.id] });
    expect(read.data).toEqual({ updated: 1 });
    expect((await api(a).query('notifications.unreadCount')).data).toEqual({ unread: 1 });
    expect((await api(b).query('notifications.unreadCount')).data).toEqual({ unread: 0 });
  });

  it('prunes notifications older than the retention', async () => {
    const m = await newTenant();
    await notify(t.services.db, m.accountId, { type: 'stock_out', title: 'old', body: '', link: '/' });
    await notify(t.services.db, m.accountId, { type: 'stock_out', title: 'new', body: '', link: '/' });
    await t.services.db
      .update(notifications)
      .set({ lastAt: new Date(Date.now() - 100 * 86_400_000) })
      .where(and(eq(notifications.accountId, m.accountId), eq(notifications.title, 'old')));
    expect(await pruneNotifications(t.services.db, 90)).toBeGreaterThanOrEqual(1);
    expect((await feed(m)).results.map((n) => n.title)).toEqual(['new']);
  });

  describe('daily digest', () => {
    const digestsTo = (email: string) =>
      t.services.db
        .select()
        .from(mailMessages)
        .where(and(eq(mailMessages.to, email), eq(mailMessages.template, DIGEST_TEMPLATE)));

    it('goes at the chosen hour of the account’s time zone, once a day, with the e-mailed types only', async () => {
      const m = await newTenant();
      await t.services.db.update(accounts).set({ timezone: 'America/New_York' }).where(eq(accounts.id, m.accountId));
      const saved = await api(m).mutation<NotificationSettings>('notifications.updateSettings', {
        emailTypes: ['order_flagged', 'payment_failed'],
        digestHour: 7,
      });
      expect(saved.data).toMatchObject({ digestHour: 7, timezone: 'America/New_York' });
      await notify(t.services.db, m.accountId, {
        type: 'order_flagged',
        title: 'Order #1001 is flagged',
        body: 'No stock',
        link: '/orders/ord_1',
      });
      await notify(t.services.db, m.accountId, { type: 'stock_low', title: 'TEE low', body: 'x', link: '/products' });
      await notify(t.services.db, m.accountId, {
        type: 'payment_failed',
        title: 'Your subscription payment failed',
        body: 'declined',
        link: '/settings/account',
      });
      // 07:05 in New York (EST, UTC−5) is 12:05 UTC; 06:05 there is too early.
      expect(await sendDigests(t.services, new Date('2026-01-15T11:05:00Z'))).not.toContain(m.accountId);
      expect(await sendDigests(t.services, new Date('2026-01-15T12:05:00Z'))).toContain(m.accountId);
      const [mail, ...others] = await digestsTo(m.email);
      expect(others).toHaveLength(0);
      expect(mail?.subject).toMatch(/^Switchyard: 2 notifications for /);
      expect(mail?.text).toContain('Order #1001 is flagged');
      expect(mail?.text).toContain('Your subscription payment failed');
      expect(mail?.text).not.toContain('TEE low');
      expect(mail?.links).toContain(`${publicUrl(t.services.config)}/orders/ord_1`);
      // Later the same day: nothing more, even with something new.
      await notify(t.services.db, m.accountId, {
        type: 'order_flagged',
        title: 'Order #1002 is flagged',
        body: '',
        link: '/o',
      });
      expect(await sendDigests(t.services, new Date('2026-01-15T12:35:00Z'))).not.toContain(m.accountId);
      // The next day: only what no digest carried yet.
      expect(await sendDigests(t.services, new Date('2026-01-16T12:05:00Z'))).toContain(m.accountId);
      const mails = await digestsTo(m.email);
      expect(mails).toHaveLength(2);
      const next = mails.find((x) => x.id !== mail?.id);
      expect(next?.text).toContain('Order #1002 is flagged');
      expect(next?.text).not.toContain('Order #1001 is flagged');
    });

    it('sends nothing when the merchant chose in-app only', async () => {
      const m = await newTenant();
      await api(m).mutation('notifications.updateSettings', { emailTypes: [], digestHour: 9 });
      await notify(t.services.db, m.accountId, { type: 'payment_failed', title: 'p', body: 'b', link: '/' });
      expect(await sendDigests(t.services, new Date('2026-01-15T09:05:00Z'))).not.toContain(m.accountId);
      expect(await digestsTo(m.email)).toHaveLength(0);
    });
  });

  describe('v2 options', () => {
    it('PATCH options sets the options; list and get are not implemented', async () => {
      const m = await newTenant();
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/api/v2/options',
        headers: m.headers,
        payload: { lowStockThreshold: 7, emailTypes: ['stock_out'] },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ lowStockThreshold: 7, emailTypes: ['stock_out'], digestHour: 8 });
      const settings = await api(m).query<NotificationSettings>('notifications.settings');
      expect(settings.data).toMatchObject({ lowStockThreshold: 7, emailTypes: ['stock_out'] });
      const bad = await t.app.inject({
        method: 'PATCH',
        url: '/api/v2/options',
        headers: m.headers,
        payload: { digestHour: 25, colour: 'red' },
      });
      expect(bad.statusCode).toBe(400);
      for (const url of ['/api/v2/options', '/api/v2/options/3']) {
        const res = await t.app.inject({ url, headers: m.headers });
        expect(res.json()).toMatchObject({ message: 'Not implemented yet' });
      }
    });
  });
});
