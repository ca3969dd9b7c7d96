// Connecting channels end to end against the provider simulators over real HTTP: the consent pages,
// process-oauth, stored credentials, locations, settings, webhooks (signed, forged, duplicate) and uninstall.
import type { ChannelDetail, ChannelSummary, ProcessOauthResult, ProviderStore } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startRelay } from '../../../test/relay.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { startJobs } from '../../bootstrap.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { decryptJson } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { mailMessages } from '../mail/mail.tables.ts';
import { channels, webhookEvents } from './channels.tables.ts';
import { processWebhookEvent } from './channels.webhooks.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

let sandbox: RunningSandbox;
let relay: Awaited<ReturnType<typeof startRelay>>;
let t: TestApp;
let queue: JobQueue;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 12 });
  relay = await startRelay();
  t = await createTestApp({ sandboxUrl: sandbox.url, env: { PUBLIC_URL: relay.url } });
  relay.attach(t.app);
  sandbox.ctx.options.square = { ...sandbox.ctx.options.square, webhookUrl: `${relay.url}/webhooks/square` };
  queue = await startJobs(t.services, { work: true });
});
afterAll(async () => {
  await queue?.stop({ timeoutMs: 2000 });
  await t?.close();
  await relay?.close();
  await sandbox?.close();
});

const decode = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? e,
  );
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\b${name}="([^"]*)"`).exec(tag);
  return m ? decode(m[1] as string) : undefined;
};

/**
 * Does what the merchant does on the provider's consent page: opens it, submits its form with the approving
 * button, and answers the query the provider sends the browser back to our callback with.
 */
async function consent(url: string, type: string): Promise<Record<string, string>> {
  const page = await fetch(url);
  const html = await page.text();
  expect(page.status, html).toBe(200);
  const form = /<form[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  expect(form, html).not.toBeNull();
  const [formTag] = /<form[^>]*>/i.exec(form?.[0] ?? '') ?? [''];
  const fields = new URLSearchParams();
  for (const [input] of (form?.[1] ?? '').matchAll(/<input[^>]*>/gi)) {
    const name = attr(input, 'name');
    if (name && attr(input, 'type') === 'hidden') fields.append(name, attr(input, 'value') ?? '');
  }
  const button = /<button[^>]*>/i.exec(form?.[1] ?? '')?.[0] ?? '';
  const buttonName = attr(button, 'name');
  if (buttonName) fields.append(buttonName, attr(button, 'value') ?? '');
  const action = new URL(attr(formTag, 'action') ?? '', page.url);
  const res = await fetch(action, { method: 'POST', body: fields, redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  const back = new URL(res.headers.get('location') ?? '');
  expect(`${back.origin}${back.pathname}`).toBe(`${relay.url}/oauth/callback/${type}`);
  return Object.fromEntries(back.searchParams);
}

const post = (tenant: Tenant, url: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url, headers: tenant.headers, payload: payload as Record<string, unknown> });

async function oauthUrl(tenant: Tenant, provider: string, properties: Record<string, string>) {
  const res = await trpcOver(t.app, tenant.headers).query<{ url: string }>('channels.getOauthUrl', {
    provider,
    properties,
  });
  expect(res.error).toBeUndefined();
  return res.data?.url as string;
}

const detail = async (tenant: Tenant, id: string) =>
  (await trpcOver(t.app, tenant.headers).query<ChannelDetail>('channels.get', { id })).data as ChannelDetail;

async function settleWebhooks() {
  await fetch(`${sandbox.url}/_control/deliveries/settle`, { method: 'POST' });
}

/** Waits for the job queue to process what arrived. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What arrived and what became of it, for a failing assertion's message. */
async function diagnose(channelId: string) {
  const events = await eventsOf(channelId);
  const relayed = relay.received.map((r) => `${r.url} ${r.status}`);
  const deliveries = await (await fetch(`${sandbox.url}/_control/deliveries`)).json();
  return JSON.stringify({ events: events.map(({ payload: _p, ...e }) => e), relayed, deliveries }, null, 1);
}

const eventsOf = (channelId: string) =>
  t.services.db.select().from(webhookEvents).where(eq(webhookEvents.channelId, channelId));

describe('Shopify', () => {
  let owner: Tenant;
  let channelId: string;
  let token: string;

  beforeAll(async () => {
    owner = await createSignedInAccount(t.services);
  });

  it('connects through the consent page and stores the credentials encrypted', async () => {
    const created = await post(owner, '/api/frontend/integration/create', { type: 'shopify' });
    channelId = created.json<ChannelSummary>().id;
    const url = await oauthUrl(owner, 'shopify', { shop: 'demo.myshopify.com', channelId });
    expect(new URL(url).pathname).toMatch(/\/shopify\/demo\/admin\/oauth\/authorize$/);
    const query = await consent(url, 'shopify');
    expect(query.shop).toBe('demo.myshopify.com');

    const done = await post(owner, '/api/v1/oauth/shopify/process-oauth', query);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json<ProcessOauthResult>()).toMatchObject({ channelId, type: 'shopify', status: 'connected' });

    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channelId));
    const credentials = decryptJson<{ accessToken: string }>(
      t.services.credentialsKey,
      row?.credentials ?? '',
      channelId,
    );
    token = credentials.accessToken;
    expect(token.length).toBeGreaterThan(10);
    expect(row?.credentials).not.toContain(token);
    // Bound to its row: the same ciphertext does not open as another channel's.
    expect(() => decryptJson(t.services.credentialsKey, row?.credentials ?? '', 'chn_other')).toThrow();
    expect(JSON.stringify(t.logs)).not.toContain(token);

    const channel = await detail(owner, channelId);
    expect(channel).toMatchObject({
      status: 'connected',
      externalId: expect.stringMatching(/^demo/),
      statusMessage: null,
    });
    expect(channel.connectedAt).toBeInstanceOf(Date);
    expect(channel.settings.channel.locationMap.length).toBe(4);
    for (const m of channel.settings.channel.locationMap) expect(m).toMatchObject({ storeId: null, feeds: true });
  });

  it('refuses the same callback twice', async () => {
    const url = await oauthUrl(owner, 'shopify', { shop: 'demo', channelId });
    const query = await consent(url, 'shopify');
    expect((await post(owner, '/api/v2/oauth/shopify/process-oauth', query)).statusCode).toBe(200);
    const again = await post(owner, '/api/v2/oauth/shopify/process-oauth', query);
    expect(again.json()).toEqual({
      code: 409,
      message: 'This authorization was already used. Start connecting again.',
    });
  });

  it('refuses a callback whose hmac was forged, and leaves the channel as it was', async () => {
    const other = await createSignedInAccount(t.services);
    const url = await oauthUrl(other, 'shopify', { shop: 'forged' });
    const query = await consent(url, 'shopify');
    const res = await post(other, '/api/v1/oauth/shopify/process-oauth', { ...query, hmac: '0'.repeat(64) });
    expect(res.json()).toEqual({
      code: 400,
      message: 'The Shopify callback signature is not valid. Start connecting again.',
    });
    const list = await trpcOver(t.app, other.headers).query<ChannelSummary[]>('channels.list');
    expect(list.data).toEqual([]);
  });

  it('refuses a shop that another account has connected', async () => {
    const other = await createSignedInAccount(t.services);
    const url = await oauthUrl(other, 'shopify', { shop: 'demo' });
    const res = await post(other, '/api/v1/oauth/shopify/process-oauth', await consent(url, 'shopify'));
    expect(res.json()).toEqual({
      code: 409,
      message:
        'This Shopify shop is already connected to another Switchyard account. Disconnect it there (or uninstall the app) first.',
    });
  });

  it('lists the shop’s locations and saves a mapping to a POS store', async () => {
    const res = await t.app.inject({
      url: `/api/v1/wrappers/shopify/locations?channel_id=${channelId}`,
      headers: owner.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { locations } = res.json<{ locations: ProviderStore[] }>();
    expect(locations).toHaveLength(4);
    const current = (await detail(owner, channelId)).settings.channel;
    expect(current.locationMap.map((m) => m.externalLocationId).sort()).toEqual(locations.map((l) => l.id).sort());

    const [first, ...rest] = current.locationMap;
    const mapped = {
      ...current,
      locationMap: [{ ...first, storeId: 'SQ-STORE-1' }, ...rest.map((m) => ({ ...m, feeds: false }))],
    };
    const saved = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${channelId}/settings/channel`,
      headers: owner.headers,
      payload: mapped,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await detail(owner, channelId)).settings.channel.locationMap[0]?.storeId).toBe('SQ-STORE-1');

    const wrong = await t.app.inject({
      url: `/api/v1/wrappers/bigcommerce/locations?channel_id=${channelId}`,
      headers: owner.headers,
    });
    expect(wrong.statusCode).toBe(404);
  });

  it('stores a signed webhook once, processes it once, and refuses a forged one', async () => {
    const before = relay.received.length;
    const control = await fetch(`${sandbox.url}/_control/shopify/demo/stock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sku: (await firstSku('shopify', 'demo')) as string, delta: -1 }),
    });
    expect(control.status, await control.text()).toBe(200);
    await settleWebhooks();
    const delivered = relay.received.slice(before).filter((r) => r.url === '/webhooks/shopify');
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.every((r) => r.status === 200)).toBe(true);

    const events = await until(
      () => eventsOf(channelId),
      (rows) => rows.length > 0 && rows.every((r) => r.processedAt),
    );
    expect(events.length).toBe(delivered.length);
    // No listing of ours has this item: the sync engine ignores it.
    expect(events[0]).toMatchObject({
      provider: 'shopify',
      outcome: 'stock: 0 changed, 0 unchanged, 1 ignored',
      attempts: 1,
      error: null,
    });

    // The provider retries a delivery: same event id, stored and processed once.
    const original = delivered[0];
    const replay = await t.app.inject({
      method: 'POST',
      url: '/webhooks/shopify',
      headers: original?.headers as Record<string, string>,
      payload: original?.body,
    });
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    await new Promise((r) => setTimeout(r, 1500));
    const after = await eventsOf(channelId);
    expect(after.length).toBe(events.length);
    expect(after.every((e) => e.attempts === 1)).toBe(true);

    const tampered = Buffer.from(
      (original?.body.toString('utf8') ?? '').replace(/"available":\s*-?\d+/, '"available":999'),
    );
    const forged = await t.app.inject({
      method: 'POST',
      url: '/webhooks/shopify',
      headers: { ...(original?.headers as Record<string, string>), 'x-shopify-event-id': 'forged-event' },
      payload: tampered.equals(original?.body ?? Buffer.alloc(0))
        ? Buffer.concat([tampered, Buffer.from(' ')])
        : tampered,
    });
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toEqual({ code: 401, message: 'Invalid webhook signature' });
    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/webhooks/shopify',
      headers: { 'content-type': 'application/json' },
      payload: '{"id":1}',
    });
    expect(unsigned.statusCode).toBe(401);
    expect((await eventsOf(channelId)).length).toBe(events.length);
  });

  it('disconnects the channel and tells the merchant when the app is uninstalled', async () => {
    const res = await fetch(`${sandbox.url}/_control/shopify/demo/uninstall`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status, await res.text()).toBe(200);
    await settleWebhooks();
    const channel = await until(
      () => detail(owner, channelId),
      (c) => c.status === 'disconnected',
    );
    expect(channel.status, await diagnose(channelId)).toBe('disconnected');
    expect(channel.statusMessage).toBe(
      'The Switchyard app was uninstalled from this Shopify shop. Re-authorise to connect it again.',
    );
    expect(channel.settings.channel.locationMap[0]?.storeId).toBe('SQ-STORE-1');
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channelId));
    expect(row?.credentials).toBeNull();
    const mail = await t.services.db
      .select()
      .from(mailMessages)
      .where(and(eq(mailMessages.to, owner.email), eq(mailMessages.template, 'channel_disconnected')));
    expect(mail).toHaveLength(1);
    expect(mail[0]?.subject).toBe('Shopify was disconnected');
    expect(mail[0]?.links).toEqual([`${relay.url}/channels/`]);
  });

  it('re-authorises the disconnected channel, keeping its settings', async () => {
    const url = await oauthUrl(owner, 'shopify', { channelId });
    const res = await post(owner, '/api/v1/oauth/shopify/process-oauth', await consent(url, 'shopify'));
    expect(res.json<ProcessOauthResult>()).toMatchObject({ channelId, status: 'connected' });
    const channel = await detail(owner, channelId);
    expect(channel.statusMessage).toBeNull();
    expect(channel.settings.channel.locationMap[0]?.storeId).toBe('SQ-STORE-1');
    expect(channel.settings.channel.locationMap[1]?.feeds).toBe(false);

    // An uninstall from before this authorization, delivered late, leaves the new installation alone.
    const late = newId('whe');
    await t.services.db.insert(webhookEvents).values({
      id: late,
      provider: 'shopify',
      eventId: `late-${late}`,
      topic: 'app/uninstalled',
      shopExternalId: channel.externalId as string,
      accountId: owner.accountId,
      channelId,
      payload: {},
      occurredAt: new Date((channel.connectedAt as Date).getTime() - 60_000),
    });
    await processWebhookEvent(t.services, late);
    const [lateRow] = await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.id, late));
    expect(lateRow?.outcome).toBe('older than the current authorization');
    expect((await detail(owner, channelId)).status).toBe('connected');

    // Shopify signs the body only: the uninstall delivered earlier, sent again as a new event of now, is
    // verified and stored, but the shop still answers our token, so the app is installed and nothing changes.
    const uninstall = relay.received.find(
      (r) => r.url === '/webhooks/shopify' && r.headers['x-shopify-topic'] === 'app/uninstalled',
    );
    expect(uninstall).toBeDefined();
    const replayed = await t.app.inject({
      method: 'POST',
      url: '/webhooks/shopify',
      headers: {
        ...(uninstall?.headers as Record<string, string>),
        'x-shopify-event-id': `replayed-${newId('evt')}`,
        'x-shopify-triggered-at': new Date(Date.now() + 5000).toISOString(),
      },
      payload: uninstall?.body,
    });
    expect(replayed.json()).toEqual({ received: true, duplicate: false });
    const [replayedRow] = await until(
      () => t.services.db.select().from(webhookEvents).where(like(webhookEvents.eventId, 'replayed-%')),
      (rows) => rows.length === 1 && rows[0]?.processedAt != null,
    );
    expect(replayedRow?.outcome).toBe('ignored: the app is still installed (our access token still works)');
    expect((await detail(owner, channelId)).status).toBe('connected');

    const gone = await trpcOver(t.app, owner.headers).mutation<ChannelSummary>('channels.disconnect', {
      id: channelId,
    });
    expect(gone.data?.status).toBe('disconnected');
    const locations = await t.app.inject({
      url: `/api/v1/wrappers/shopify/locations?channel_id=${channelId}`,
      headers: owner.headers,
    });
    expect(locations.json()).toEqual({ code: 409, message: 'Shopify is not connected. Re-authorise it first.' });
  });
});

async function firstSku(provider: string, shop: string): Promise<string> {
  const res = await fetch(`${sandbox.url}/_control/${provider}/${shop}`);
  const snapshot = (await res.json()) as { stock: Record<string, unknown> };
  return Object.keys(snapshot.stock)[0] as string;
}

describe('BigCommerce', () => {
  let owner: Tenant;
  let channelId: string;

  beforeAll(async () => {
    owner = await createSignedInAccount(t.services);
  });

  it('answers 502 with a clear message when BigCommerce fails the exchange, leaving the channel pending', async () => {
    const { id } = (
      await post(owner, '/api/frontend/integration/create', { type: 'bigcommerce' })
    ).json<ChannelSummary>();
    const url = await oauthUrl(owner, 'bigcommerce', { hash: 'down', channelId: id });
    const query = await consent(url, 'bigcommerce');
    await fetch(`${sandbox.url}/_control/bigcommerce/down/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rate5xx: 1 }),
    });
    try {
      const res = await post(owner, '/api/v1/oauth/bigcommerce/process-oauth', query);
      expect(res.statusCode, res.body).toBe(502);
      expect(res.json().message).toMatch(/BigCommerce did not complete the authorization/);
    } finally {
      await fetch(`${sandbox.url}/_control/bigcommerce/down/faults`, { method: 'DELETE' });
    }
    expect(await detail(owner, id)).toMatchObject({ status: 'pending', externalId: null });
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, id));
    expect(row?.credentials).toBeNull();
  });

  it('connects a store by its hash and lists its locations', async () => {
    channelId = (await post(owner, '/api/frontend/integration/create', { type: 'bigcommerce' })).json<ChannelSummary>()
      .id;
    const url = await oauthUrl(owner, 'bigcommerce', { hash: 'demo', channelId });
    const query = await consent(url, 'bigcommerce');
    expect(query.context).toBe('stores/demo');
    const res = await post(owner, '/api/v1/oauth/bigcommerce/process-oauth', query);
    expect(res.statusCode, res.body).toBe(200);
    const channel = await detail(owner, channelId);
    expect(channel).toMatchObject({ status: 'connected', externalId: 'demo' });
    expect(channel.settings.channel.locationMap.length).toBeGreaterThan(0);
    const locations = await t.app.inject({
      url: `/api/v2/wrappers/bigcommerce/locations?channel_id=${channelId}`,
      headers: owner.headers,
    });
    expect(
      locations
        .json<{ locations: ProviderStore[] }>()
        .locations.map((l) => l.id)
        .sort(),
    ).toEqual(channel.settings.channel.locationMap.map((m) => m.externalLocationId).sort());
  });

  it('disconnects on the uninstall webhook and callback, and e-mails the merchant once', async () => {
    // The app's uninstall callback, as registered in BigCommerce's Developer Portal.
    sandbox.ctx.options.bigcommerce = {
      ...sandbox.ctx.options.bigcommerce,
      uninstallUrl: `${relay.url}/webhooks/bigcommerce/uninstall`,
    };
    const res = await fetch(`${sandbox.url}/_control/bigcommerce/demo/uninstall`, { method: 'POST' });
    expect(res.status, await res.text()).toBe(200);
    await settleWebhooks();
    const callback = relay.received.find((r) => r.url.startsWith('/webhooks/bigcommerce/uninstall?'));
    expect(callback?.status).toBe(200);
    const events = await until(
      () => eventsOf(channelId),
      (rows) => rows.filter((e) => e.topic === 'store/app/uninstalled' && e.processedAt).length === 2,
    );
    const outcomes = events.filter((e) => e.topic === 'store/app/uninstalled').map((e) => e.outcome);
    expect(outcomes.sort(), await diagnose(channelId)).toEqual(['channel disconnected', 'channel was not connected']);
    const channel = await detail(owner, channelId);
    expect(channel.status).toBe('disconnected');
    const mail = await t.services.db.select().from(mailMessages).where(eq(mailMessages.to, owner.email));
    expect(mail.filter((m) => m.template === 'channel_disconnected')).toHaveLength(1);

    const again = await t.app.inject({ url: callback?.url as string });
    expect(again.json()).toEqual({ received: true, duplicate: true });
    const forged = await t.app.inject({
      url: `/webhooks/bigcommerce/uninstall?signed_payload_jwt=${(callback?.url.split('=')[1] ?? '').slice(0, -4)}AAAA`,
    });
    expect(forged.json()).toEqual({ code: 401, message: 'Invalid signed payload' });
  });
});

describe('Square POS', () => {
  let owner: Tenant;
  let squareChannelId: string;

  beforeAll(async () => {
    owner = await createSignedInAccount(t.services);
  });

  it('sends environment api to production and sandbox to the sandbox host', async () => {
    const api = await post(owner, '/api/v1/oauth/square/generate-redirect-url', { store: '', environment: 'api' });
    expect(api.statusCode, api.body).toBe(200);
    const production = new URL(api.json<{ url: string }>().url);
    expect(production.href.startsWith(t.services.providers.square.baseUrl('production'))).toBe(true);
    expect(production.href.startsWith(t.services.providers.square.baseUrl('sandbox'))).toBe(false);
    const sandboxed = await post(owner, '/api/v2/oauth/square/generate-redirect-url', { environment: 'sandbox' });
    expect(sandboxed.json<{ url: string }>().url.startsWith(t.services.providers.square.baseUrl('sandbox'))).toBe(true);
  });

  it('connects a new channel, maps each location to itself as a store, and lists the stores', async () => {
    const start = await post(owner, '/api/v1/oauth/square/generate-redirect-url', { store: '', environment: 'api' });
    const query = await consent(start.json<{ url: string }>().url, 'square');
    const res = await post(owner, '/api/v1/oauth/square/process-oauth', query);
    expect(res.statusCode, res.body).toBe(200);
    const { channelId } = res.json<ProcessOauthResult>();
    const channel = await detail(owner, channelId);
    expect(channel).toMatchObject({ type: 'square', status: 'connected' });
    const map = channel.settings.channel.locationMap;
    expect(map.length).toBeGreaterThan(0);
    for (const m of map) expect(m.storeId).toBe(m.externalLocationId);

    const stores = await t.app.inject({ url: '/api/v1/wrappers/square/stores', headers: owner.headers });
    expect(
      stores
        .json<{ stores: ProviderStore[] }>()
        .stores.map((s) => s.id)
        .sort(),
    ).toEqual(map.map((m) => m.externalLocationId).sort());
    squareChannelId = channelId;
  });

  it('puts the channel in error when the seller revokes our access, once, whatever the redeliveries', async () => {
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, squareChannelId));
    const before = relay.received.length;
    const { applicationId, applicationSecret } = t.services.providers.square;
    const revoke = await fetch(`${t.services.providers.square.baseUrl('production')}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Client ${applicationSecret}` },
      body: JSON.stringify({ client_id: applicationId, merchant_id: row?.externalId }),
    });
    expect(revoke.status, await revoke.text()).toBe(200);
    await settleWebhooks();
    const channel = await until(
      () => detail(owner, squareChannelId),
      (c) => c.status === 'error',
    );
    expect(channel).toMatchObject({
      status: 'error',
      statusMessage: 'Square POS access was revoked. Re-authorise the channel to sync again.',
    });
    const revoked = relay.received.slice(before).find((r) => r.url === '/webhooks/square');
    expect(revoked?.status).toBe(200);

    const replay = await t.app.inject({
      method: 'POST',
      url: '/webhooks/square',
      headers: revoked?.headers as Record<string, string>,
      payload: revoked?.body,
    });
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    const forged = await t.app.inject({
      method: 'POST',
      url: '/webhooks/square',
      headers: revoked?.headers as Record<string, string>,
      payload: (revoked?.body.toString('utf8') ?? '').replace('"event_id":"', '"event_id":"x'),
    });
    expect(forged.statusCode).toBe(401);
    const events = await eventsOf(squareChannelId);
    expect(events.filter((e) => e.topic === 'oauth.authorization.revoked')).toHaveLength(1);
    // Revoking is not an uninstall: no e-mail.
    const mail = await t.services.db.select().from(mailMessages).where(eq(mailMessages.to, owner.email));
    expect(mail.map((m) => m.template)).not.toContain('channel_disconnected');
  });
});
