// Settings → Fulfillment against a real database (PGlite, and a server with TEST_DATABASE_URL): the stored shipping
// location (SPEC §3 `{ store_id }`) the queue opens on, and the pickup e-mail texts the outbox sends, through the
// tRPC procedures the settings page calls.
import { DEFAULT_PICKUP_EMAILS, type FulfillmentSettings, type FulfillmentStores } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { trpcOver } from '../../../test/trpc.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountSettings, accounts } from '../accounts/accounts.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { mailMessages } from '../mail/mail.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { pickedUp, readyForPickup } from './fulfillment.pickup.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
let world: OrderWorld;
let api: ReturnType<typeof trpcOver>;
let actor: Actor;
beforeAll(async () => {
  t = await createTestApp();
  world = await orderWorld(t.services, ['MUG-1'], 10);
  api = trpcOver(t.app, world.headers);
  actor = { sessionId: 's', userId: 'u', accountId: world.accountId, authorizationLevel: 'user', superUserRole: null };
});
afterAll(async () => {
  await t?.close();
});

const settings = async () => (await api.query<FulfillmentSettings>('fulfillment.settings')).data;
const defaultStore = async () => (await api.query<FulfillmentStores>('fulfillment.stores')).data?.defaultStoreId;

describe('the stored shipping location', () => {
  it('starts empty; set, the queue opens on that store; cleared, on the first store that ships', async () => {
    expect(await settings()).toEqual({
      shipping_location: null,
      pickup_emails: DEFAULT_PICKUP_EMAILS,
      pickup_emails_custom: false,
    });
    expect(await defaultStore()).toBe('S1');

    const set = await api.mutation<FulfillmentSettings>('fulfillment.setShippingLocation', { store_id: ' S2 ' });
    expect(set.data?.shipping_location).toEqual({ store_id: 'S2' });
    // Stored as SPEC §3 says: `{ store_id }`.
    const [row] = await t.services.db
      .select({ value: accountSettings.value })
      .from(accountSettings)
      .where(and(eq(accountSettings.accountId, world.accountId), eq(accountSettings.key, 'shipping_location')));
    expect(row?.value).toEqual({ store_id: 'S2' });
    expect(await defaultStore()).toBe('S2');

    const cleared = await api.mutation<FulfillmentSettings>('fulfillment.setShippingLocation', { store_id: null });
    expect(cleared.data?.shipping_location).toBeNull();
    expect(await defaultStore()).toBe('S1');
  });

  it('refuses a store that is not one of the account’s, or is disabled, with a clear message', async () => {
    const unknown = await api.mutation('fulfillment.setShippingLocation', { store_id: 'NOPE' });
    expect(unknown).toMatchObject({ status: 404, error: { message: 'No location has store id NOPE.' } });
    const other = await orderWorld(t.services, ['MUG-1'], 1);
    await t.services.db.insert(locations).values({
      id: 'loc_other_only',
      accountId: other.accountId,
      name: 'Their store',
      storeId: 'THEIRS',
    });
    const theirs = await api.mutation('fulfillment.setShippingLocation', { store_id: 'THEIRS' });
    expect(theirs).toMatchObject({ status: 404, error: { message: 'No location has store id THEIRS.' } });

    await t.services.db
      .update(locations)
      .set({ enabled: false })
      .where(eq(locations.id, world.location.S2 as string));
    const disabled = await api.mutation('fulfillment.setShippingLocation', { store_id: 'S2' });
    expect(disabled).toMatchObject({
      status: 400,
      error: { message: 'Store S2 is disabled: enable it on its location page before shipping from it.' },
    });
    await t.services.db
      .update(locations)
      .set({ enabled: true })
      .where(eq(locations.id, world.location.S2 as string));
    const blank = await api.mutation('fulfillment.setShippingLocation', { store_id: '  ' });
    expect(blank.status).toBe(400);
    expect(blank.error?.message).toContain('Choose a store.');
    expect((await settings())?.shipping_location).toBeNull();
  });
});

describe('the pickup e-mail texts', () => {
  const mine = {
    ready: {
      subject: '{shop_name}: order {order_number} waits at {store_name}',
      body: 'Hi {customer_name},\n\n{items} wait for you at {store_name}, {store_address}.\n\n{pickup_instructions}',
    },
    picked_up: { subject: 'Thanks for picking up {order_number}', body: 'Enjoy, {first_name}!' },
  };

  it('refuses unknown placeholders and empty texts, saying which', async () => {
    const bad = await api.mutation('fulfillment.updatePickupEmails', {
      ...mine,
      ready: { ...mine.ready, body: 'Hello {firstname}, {order}' },
    });
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toContain('{firstname}, {order} are not placeholders. Use {first_name}');
    const empty = await api.mutation('fulfillment.updatePickupEmails', {
      ...mine,
      picked_up: { subject: ' ', body: 'x' },
    });
    expect(empty.status).toBe(400);
    expect(empty.error?.message).toContain('Write a subject.');
    expect((await settings())?.pickup_emails_custom).toBe(false);
  });

  it('sends the saved texts with the order’s values; saving the defaults goes back to them', async () => {
    const saved = await api.mutation<FulfillmentSettings>('fulfillment.updatePickupEmails', mine);
    expect(saved.data).toMatchObject({ pickup_emails: mine, pickup_emails_custom: true });

    // Store S1 has no address: the comma before {store_address} goes with it.
    const { orderId } = await ingestOrder(
      t.services,
      world.channel.shopify,
      channelOrder(
        world,
        'shopify',
        { 'MUG-1': 2 },
        {
          fulfillmentType: 'curbside_pickup',
          store: 'S1',
          locationExternalId: 'ext-S1',
          customer: { name: 'Grace Hopper', email: 'grace.settings@example.com' },
        },
      ),
    );
    await readyForPickup(t.services, actor, orderId);
    await pickedUp(t.services, actor, orderId);
    const mails = await t.services.db
      .select()
      .from(mailMessages)
      .where(eq(mailMessages.to, 'grace.settings@example.com'))
      .orderBy(mailMessages.createdAt);
    const [account] = await t.services.db
      .select({ business: accounts.business })
      .from(accounts)
      .where(eq(accounts.id, world.accountId));
    const number = mails[0]?.subject.match(/order (\S+) waits/)?.[1] as string;
    expect(mails.map((m) => [m.template, m.subject])).toEqual([
      ['pickup_ready', `${account?.business}: order ${number} waits at Store S1`],
      ['picked_up', `Thanks for picking up ${number}`],
    ]);
    expect(mails[0]?.text).toContain(
      'Hi Grace Hopper,\n\n2 × Trail Tee MUG-1 wait for you at Store S1.\n\nPark in a pickup spot and reply to this e-mail',
    );
    expect(mails[0]?.html).toContain('Hi Grace Hopper,');
    expect(mails[1]?.text).toMatch(/^Enjoy, Grace!\n\nStore directions: https:/);

    const back = await api.mutation<FulfillmentSettings>('fulfillment.updatePickupEmails', DEFAULT_PICKUP_EMAILS);
    expect(back.data).toMatchObject({ pickup_emails: DEFAULT_PICKUP_EMAILS, pickup_emails_custom: false });
  });

  it('another account’s settings stay its own', async () => {
    const other = await orderWorld(t.services, ['MUG-1'], 1);
    const theirs = trpcOver(t.app, other.headers);
    const before = await settings();
    await theirs.mutation('fulfillment.setShippingLocation', { store_id: 'S2' });
    await theirs.mutation('fulfillment.updatePickupEmails', { ...mine, picked_up: { subject: 'Theirs', body: 'x' } });
    expect(await settings()).toEqual(before);
    expect((await theirs.query<FulfillmentSettings>('fulfillment.settings')).data).toMatchObject({
      shipping_location: { store_id: 'S2' },
      pickup_emails_custom: true,
    });
  });
});
