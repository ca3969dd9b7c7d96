import { createHmac } from 'node:crypto';
import type { ChannelDetail, ChannelSummary } from '@switchyard/contracts';
import { DEFAULT_CHANNEL_SETTINGS } from '@switchyard/contracts';
import { SANDBOX_APPS } from '@switchyard/sandbox';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { startJobs } from '../../bootstrap.ts';
import { newId } from '../../lib/ids.ts';
import { subscriptions } from '../billing/billing.tables.ts';
import { ensureDefaultPlans, getPlanByCode } from '../billing/plans.service.ts';
import { issueState, OAUTH_STATE_TTL_MS, redirectUriFor } from './channels.oauth.ts';
import { pruneWebhookEvents, WEBHOOK_EVENT_RETENTION_DAYS } from './channels.retention.ts';
import { webhookEvents } from './channels.tables.ts';
import { processWebhookEvent } from './channels.webhooks.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

describe('channels without a provider', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof createSignedInAccount>>;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createSignedInAccount(t.services);
  });
  afterAll(() => t.close());

  const create = async (payload: Record<string, unknown>) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/integration/create',
      headers: owner.headers,
      payload,
    });
    return res;
  };

  it('creates a pending channel with default settings, numbered names, listed through channels.list', async () => {
    const first = await create({ type: 'bigcommerce' });
    expect(first.statusCode).toBe(201);
    expect(first.json<ChannelSummary>()).toMatchObject({
      type: 'bigcommerce',
      name: 'BigCommerce',
      status: 'pending',
      externalId: null,
      errorCount: 0,
      features: { inventory: true, catalog: true, orders: true, fulfillments: true },
    });
    const second = (await create({ type: 'bigcommerce' })).json<ChannelSummary>();
    expect(second.name).toBe('BigCommerce 2');
    const named = (await create({ type: 'square', name: '  Downtown till ' })).json<ChannelSummary>();
    expect(named.name).toBe('Downtown till');

    const list = await trpcOver(t.app, owner.headers).query<ChannelSummary[]>('channels.list');
    expect(list.data?.map((c) => c.id)).toEqual(expect.arrayContaining([first.json().id, second.id, named.id]));
    expect(list.data?.[0]?.createdAt).toBeInstanceOf(Date);

    const detail = await trpcOver(t.app, owner.headers).query<ChannelDetail>('channels.get', { id: second.id });
    expect(detail.data?.settings).toEqual(DEFAULT_CHANNEL_SETTINGS);
  });

  it('refuses an unknown channel type with the field named', async () => {
    const res = await create({ type: 'etsy' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('type');
  });

  it('saves each settings section on v1 and v2, and refuses a bad body with the field message', async () => {
    const { id } = (await create({ type: 'shopify' })).json<ChannelSummary>();
    const product = {
      priceRule: { kind: 'percent', value: 10 },
      titleTemplate: '{brand} {title}',
      publishMissing: true,
      syncFields: { title: true, description: false, price: true, images: false, barcode: true },
    };
    const saved = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${id}/settings/product`,
      headers: owner.headers,
      payload: product,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json<ChannelDetail>().settings.product).toEqual(product);

    const shipping = {
      methodMap: [{ channelMethod: 'Express', carrier: 'ups', service: 'next_day_air' }],
      defaultShipFromStoreId: 'L1',
    };
    const v2 = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/channels/${id}/settings/shipping`,
      headers: owner.headers,
      payload: shipping,
    });
    expect(v2.statusCode).toBe(200);
    const after = v2.json<ChannelDetail>().settings;
    expect(after.shipping).toEqual(shipping);
    expect(after.product).toEqual(product);

    const bad = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${id}/settings/product`,
      headers: owner.headers,
      payload: { ...product, titleTemplate: '   ' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ code: 400, message: 'Invalid product settings: titleTemplate: * Required' });

    const twice = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${id}/settings/shipping`,
      headers: owner.headers,
      payload: {
        methodMap: [shipping.methodMap[0], { ...shipping.methodMap[0], carrier: 'usps' }],
        defaultShipFromStoreId: null,
      },
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().message).toContain('methodMap.1.channelMethod');

    const badKey = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${id}/settings/secret`,
      headers: owner.headers,
      payload: {},
    });
    expect(badKey.statusCode).toBe(400);

    const advanced = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${id}/settings/advanced`,
      headers: owner.headers,
      payload: { compareAndSet: false, reconcileEveryMinutes: 1, safetyStock: 0, autoRetryFailed: true },
    });
    expect(advanced.json()).toEqual({
      code: 400,
      message: expect.stringMatching(/^Invalid advanced settings: reconcileEveryMinutes: /),
    });
    const kept = await trpcOver(t.app, owner.headers).query<ChannelDetail>('channels.get', { id });
    expect(kept.data?.settings.advanced).toEqual(DEFAULT_CHANNEL_SETTINGS.advanced);
  });

  it('renames with PATCH, switches features one at a time, and disconnects keeping the settings', async () => {
    const { id } = (await create({ type: 'shopify' })).json<ChannelSummary>();
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/channels/${id}`,
      headers: owner.headers,
      payload: { name: 'Web shop' },
    });
    expect(renamed.json<ChannelDetail>().name).toBe('Web shop');
    const empty = await t.app.inject({
      method: 'PATCH',
      url: `/api/v2/channels/${id}`,
      headers: owner.headers,
      payload: { name: ' ' },
    });
    expect(empty.statusCode).toBe(400);

    const off = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${id}/actions/features`,
      headers: owner.headers,
      payload: { orders: false },
    });
    expect(off.json<ChannelDetail>().features).toEqual({
      inventory: true,
      catalog: true,
      orders: false,
      fulfillments: true,
    });
    const alsoOff = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/channels/${id}/actions/features`,
      headers: owner.headers,
      payload: { catalog: false },
    });
    expect(alsoOff.json<ChannelDetail>().features).toMatchObject({ orders: false, catalog: false });

    const gone = await trpcOver(t.app, owner.headers).mutation<ChannelSummary>('channels.disconnect', { id });
    expect(gone.data).toMatchObject({ id, status: 'disconnected', name: 'Web shop' });
    expect(gone.data?.statusMessage).toMatch(/Re-authorise/);
    const detail = await trpcOver(t.app, owner.headers).query<ChannelDetail>('channels.get', { id });
    expect(detail.data?.features.orders).toBe(false);

    // Two switches flipped at once both stick.
    const flip = (payload: Record<string, boolean>) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/channels/${id}/actions/features`, headers: owner.headers, payload });
    await Promise.all([flip({ inventory: false }), flip({ fulfillments: false })]);
    const both = await trpcOver(t.app, owner.headers).query<ChannelDetail>('channels.get', { id });
    expect(both.data?.features).toEqual({ inventory: false, catalog: false, orders: false, fulfillments: false });

    const audit = await trpcOver(t.app, owner.headers).query<{
      results: { action: string; detail: { channelId?: string } }[];
    }>('audit.list', { limit: 100, offset: 0 });
    const actions = audit.data?.results.filter((e) => e.detail.channelId === id).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['channel.create', 'channel.rename', 'channel.features', 'channel.disconnect']),
    );
  });

  it('asks for sign-in on every channel call', async () => {
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/frontend/integration/create', payload: { type: 'shopify' } }))
        .statusCode,
    ).toBe(401);
    expect((await t.app.inject({ url: '/api/v1/wrappers/square/stores' })).statusCode).toBe(401);
    expect((await trpcOver(t.app).query('channels.list')).status).toBe(401);
  });

  it('counts webhook processing failures of the last 24 hours as the channel’s errors', async () => {
    const { id } = (await create({ type: 'square' })).json<ChannelSummary>();
    const event = (eventId: string, error: string | null, receivedAt: Date) => ({
      id: newId('whe'),
      provider: 'square' as const,
      eventId,
      topic: 'order.updated',
      shopExternalId: 'M1',
      accountId: owner.accountId,
      channelId: id,
      payload: {},
      error,
      receivedAt,
    });
    const hour = 60 * 60 * 1000;
    await t.services.db
      .insert(webhookEvents)
      .values([
        event(newId('e'), 'order not found', new Date(Date.now() - hour)),
        event(newId('e'), 'order not found', new Date(Date.now() - 2 * hour)),
        event(newId('e'), null, new Date()),
        event(newId('e'), 'too old to count', new Date(Date.now() - 25 * hour)),
      ]);
    const list = await trpcOver(t.app, owner.headers).query<ChannelSummary[]>('channels.list');
    expect(list.data?.find((c) => c.id === id)?.errorCount).toBe(2);
    const detail = await trpcOver(t.app, owner.headers).query<ChannelDetail>('channels.get', { id });
    expect(detail.data?.errorCount).toBe(2);
  });

  it('deletes processed webhook events past their retention, keeps newer ones and any not yet processed', async () => {
    const { id } = (await create({ type: 'square' })).json<ChannelSummary>();
    const day = 86_400_000;
    const now = Date.now();
    const event = (eventId: string, receivedAt: number, processed: boolean) => ({
      id: newId('whe', receivedAt),
      provider: 'square' as const,
      eventId,
      topic: 'inventory.count.updated',
      shopExternalId: 'M1',
      accountId: owner.accountId,
      channelId: id,
      payload: { eventId },
      receivedAt: new Date(receivedAt),
      processedAt: processed ? new Date(receivedAt + 1000) : null,
      outcome: processed ? 'done' : null,
    });
    const old = now - (WEBHOOK_EVENT_RETENTION_DAYS + 1) * day;
    await t.services.db
      .insert(webhookEvents)
      .values([
        event('retention-old-1', old, true),
        event('retention-old-2', old + 1000, true),
        event('retention-old-waiting', old, false),
        event('retention-recent', now - (WEBHOOK_EVENT_RETENTION_DAYS - 1) * day, true),
      ]);
    const left = async () =>
      (await t.services.db.select({ eventId: webhookEvents.eventId }).from(webhookEvents))
        .map((e) => e.eventId)
        .filter((e) => e.startsWith('retention-'))
        .sort();
    expect(await pruneWebhookEvents(t.services.db)).toBe(2);
    expect(await left()).toEqual(['retention-old-waiting', 'retention-recent']);
    // Nothing more to delete; a month on, the recent one has aged out too, and the waiting one stays.
    expect(await pruneWebhookEvents(t.services.db)).toBe(0);
    expect(await pruneWebhookEvents(t.services.db, new Date(now + 2 * day))).toBe(1);
    expect(await left()).toEqual(['retention-old-waiting']);
  });

  it('lists no Square stores while no Square is connected', async () => {
    const res = await t.app.inject({ url: '/api/v1/wrappers/square/stores', headers: owner.headers });
    expect(res.json()).toEqual({ stores: [] });
  });

  it('describes the public channel routes in the API reference', async () => {
    const res = await t.app.inject({ url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json<{ paths: Record<string, unknown> }>().paths);
    expect(paths).toEqual(
      expect.arrayContaining(['/api/v1/oauth/{provider}/process-oauth', '/api/v2/channels/{id}/settings/{key}']),
    );
  });
});

describe('OAuth state', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof createSignedInAccount>>;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createSignedInAccount(t.services);
  });
  afterAll(() => t.close());

  const processOauth = (provider: string, payload: Record<string, string>, headers = owner.headers) =>
    t.app.inject({ method: 'POST', url: `/api/v1/oauth/${provider}/process-oauth`, headers, payload });

  const state = (provider: 'shopify' | 'square', now = new Date()) =>
    issueState(
      t.services.db,
      owner,
      { provider, channelId: null, redirectUri: redirectUriFor(t.services, provider), shop: null },
      now,
    );

  it('refuses a callback without a state, with a state never issued, or one issued for another provider', async () => {
    const missing = await processOauth('square', { code: 'sq0cgb-x' });
    expect(missing.json()).toEqual({
      code: 400,
      message: 'The authorization came back without its state. Start connecting again.',
    });
    const forged = await processOauth('square', { code: 'sq0cgb-x', state: 'made-up' });
    expect(forged.statusCode).toBe(404);
    expect(forged.json().message).toBe('This authorization was not started here. Start connecting again.');
    const other = await processOauth('square', { code: 'sq0cgb-x', state: await state('shopify') });
    expect(other.json()).toEqual({ code: 400, message: 'This authorization was started for Shopify.' });
  });

  it('refuses a state older than 10 minutes', async () => {
    const old = await state('square', new Date(Date.now() - OAUTH_STATE_TTL_MS - 1000));
    const res = await processOauth('square', { code: 'sq0cgb-x', state: old });
    expect(res.json()).toEqual({
      code: 400,
      message: 'This authorization expired (it lasts 10 minutes). Start connecting again.',
    });
  });

  it('spends a state on its first use, even when the provider then says no', async () => {
    const once = await state('square');
    const denied = await processOauth('square', {
      error: 'access_denied',
      error_description: 'user_denied',
      state: once,
    });
    expect(denied.json()).toEqual({ code: 400, message: 'Square POS did not grant access (user denied).' });
    const again = await processOauth('square', { code: 'sq0cgb-x', state: once });
    expect(again.json()).toEqual({
      code: 409,
      message: 'This authorization was already used. Start connecting again.',
    });
  });

  it("does not accept another account's state, and leaves it unspent", async () => {
    const other = await createSignedInAccount(t.services);
    const mine = await state('square');
    const res = await processOauth('square', { code: 'sq0cgb-x', state: mine }, other.headers);
    expect(res.statusCode).toBe(404);
    const denied = await processOauth('square', { error: 'access_denied', state: mine });
    expect(denied.json().message).toBe('Square POS did not grant access (access denied).');
  });

  it('refuses a Shopify authorization without a valid shop name, before any state is issued', async () => {
    const res = await trpcOver(t.app, owner.headers).query('channels.getOauthUrl', {
      provider: 'shopify',
      properties: { shop: '-bad shop!' },
    });
    expect(res.error?.message).toBe('Enter your Shopify shop address, e.g. your-store.myshopify.com.');
  });
});

describe('plan limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    await ensureDefaultPlans(t.services.db);
  });
  afterAll(() => t.close());

  const create = (headers: Record<string, string>, type = 'shopify') =>
    t.app.inject({ method: 'POST', url: '/api/frontend/integration/create', headers, payload: { type } });

  it('refuses a channel beyond the plan with the limit named, and counts a disconnected one out', async () => {
    const owner = await createSignedInAccount(t.services);
    const starter = await getPlanByCode(t.services.db, 'starter');
    expect(starter?.limits.channels).toBe(1);
    await t.services.db.insert(subscriptions).values({
      id: newId('sub'),
      accountId: owner.accountId,
      mode: 'sandbox',
      stripeSubscriptionId: newId('sub_test'),
      stripeCustomerId: newId('cus_test'),
      planId: starter?.id as string,
      interval: 'month',
      status: 'active',
    });
    const first = await create(owner.headers);
    expect(first.statusCode).toBe(201);
    const second = await create(owner.headers, 'square');
    expect(second.json()).toEqual({
      code: 402,
      message: 'Your Starter plan includes 1 sales channel. Upgrade your plan (/settings/account) to add more.',
    });
    const viaOauth = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/square/generate-redirect-url',
      headers: owner.headers,
      payload: { store: '', environment: 'api' },
    });
    expect(viaOauth.statusCode).toBe(402);

    await trpcOver(t.app, owner.headers).mutation('channels.disconnect', { id: first.json().id });
    expect((await create(owner.headers, 'square')).statusCode).toBe(201);
    // Re-authorising the disconnected one would make two.
    const back = await trpcOver(t.app, owner.headers).query('channels.getOauthUrl', {
      provider: 'shopify',
      properties: { shop: 'demo', channelId: first.json().id },
    });
    expect(back.error?.data.domainCode).toBe('PLAN_LIMIT');
  });

  it('refuses channels to an account without a plan', async () => {
    const owner = await createSignedInAccount(t.services, { status: 'requires_payment_method' });
    const res = await create(owner.headers);
    expect(res.json()).toEqual({
      code: 402,
      message: 'Choose a plan to add sales channels: the account has no active subscription.',
    });
  });
});

describe('webhooks without a channel', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const deliver = (body: string, headers: Record<string, string>, secret: string = SANDBOX_APPS.shopify.apiSecret) =>
    t.app.inject({
      method: 'POST',
      url: '/webhooks/shopify',
      headers: {
        'content-type': 'application/json',
        'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body).digest('base64'),
        ...headers,
      },
      payload: body,
    });

  it('keeps an event for a shop no channel has, and marks it so', async () => {
    const res = await deliver('{"id":1}', {
      'x-shopify-topic': 'orders/create',
      'x-shopify-shop-domain': 'nobody-here.myshopify.com',
      'x-shopify-event-id': 'evt-orphan-1',
    });
    expect(res.json()).toEqual({ received: true, duplicate: false });
    const [row] = await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, 'evt-orphan-1'));
    expect(row).toMatchObject({ channelId: null, accountId: null, topic: 'orders/create', payload: { id: 1 } });
    await processWebhookEvent(t.services, row?.id as string);
    await processWebhookEvent(t.services, row?.id as string);
    const [after] = await t.services.db
      .select()
      .from(webhookEvents)
      .where(eq(webhookEvents.id, row?.id as string));
    expect(after).toMatchObject({ outcome: 'no channel for this shop', attempts: 1 });
    expect(after?.processedAt).toBeInstanceOf(Date);
  });

  it('queues an event again when the provider redelivers it before it was processed', async () => {
    const headers = {
      'x-shopify-topic': 'products/update',
      'x-shopify-shop-domain': 'nobody-here.myshopify.com',
      'x-shopify-event-id': 'evt-unqueued',
    };
    // No queue yet: the first delivery is stored but nothing processes it.
    expect((await deliver('{"id":3}', headers)).json()).toEqual({ received: true, duplicate: false });
    const queue = await startJobs(t.services, { work: true });
    try {
      expect((await deliver('{"id":3}', headers)).json()).toEqual({ received: true, duplicate: true });
      const read = async () =>
        (await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, 'evt-unqueued')))[0];
      const end = Date.now() + 30_000;
      let row = await read();
      while (!row?.processedAt && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 100));
        row = await read();
      }
      expect(row).toMatchObject({ outcome: 'no channel for this shop', attempts: 1 });
    } finally {
      await queue.stop({ timeoutMs: 2000 });
      t.services.queue = undefined;
    }
  });

  it('refuses a body signed with another secret, and keeps a signed body it cannot read, marked failed', async () => {
    const headers = {
      'x-shopify-topic': 'orders/create',
      'x-shopify-shop-domain': 'demo.myshopify.com',
      'x-shopify-event-id': 'evt-bad',
    };
    expect((await deliver('{"id":2}', headers, 'not-our-secret')).statusCode).toBe(401);
    // Refusing it would only have Shopify deliver it again, and again.
    const unreadable = await deliver('not json', headers);
    expect(unreadable.json()).toEqual({ received: true, duplicate: false });
    expect((await deliver('not json', headers)).json()).toEqual({ received: true, duplicate: true });
    const [stored] = await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.topic, 'unreadable'));
    expect(stored).toMatchObject({
      provider: 'shopify',
      payload: { body: 'not json' },
      processedAt: expect.any(Date),
      error: 'Unreadable webhook payload: A Shopify webhook whose body is not JSON',
    });
  });

  it('keeps a payload PostgreSQL cannot hold, made storable and marked failed, and never processes it', async () => {
    const res = await deliver('{"id":4,"note":"a\\u0000b","items":[{"sku":"x\\ud800"}]}', {
      'x-shopify-topic': 'orders/create',
      'x-shopify-shop-domain': 'demo.myshopify.com',
      'x-shopify-event-id': 'evt-nul',
    });
    expect(res.json()).toEqual({ received: true, duplicate: false });
    const [stored] = await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, 'evt-nul'));
    expect(stored).toMatchObject({
      payload: { id: 4, note: 'a\uFFFDb', items: [{ sku: 'x\uFFFD' }] },
      processedAt: expect.any(Date),
      outcome: 'not processed: malformed',
      error: expect.stringMatching(
        /^payload\.(note must not contain the character U\+0000|items\.0\.sku must be valid Unicode)/,
      ),
    });
  });

  it("marks failed a stock event whose quantity no level can hold, instead of failing its channel's every pass", async () => {
    const headers = {
      'x-shopify-topic': 'inventory_levels/update',
      'x-shopify-shop-domain': 'demo.myshopify.com',
    };
    for (const [eventId, available] of [
      ['evt-qty-huge', '1e12'],
      ['evt-qty-half', '1.5'],
    ] as const) {
      const body = `{"inventory_item_id":1,"location_id":2,"available":${available}}`;
      expect((await deliver(body, { ...headers, 'x-shopify-event-id': eventId })).statusCode).toBe(200);
      const [stored] = await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, eventId));
      expect(stored).toMatchObject({
        processedAt: expect.any(Date),
        error: `a stock quantity that is not a whole number in range (${Number(available)})`,
      });
    }
  });
});
