// The tenant-isolation table (issue 3, STYLE §6): every operation that takes an id must answer another
// account's id exactly as it answers an id that does not exist: NOT_FOUND / HTTP 404, never 403, never
// the data. isolation.db.test.ts runs every entry against two real accounts.
//
// Adding a module's routes (later issues): append one entry per id-taking route or procedure to
// `idTakingOperations`:
//   - `create` makes a row in account A through the public surface or the service, and answers its id
//     plus a `marker`, a text unique to that row (its name, say) that must never reach account B;
//   - `attempt` calls the operation as account B with that id, through `rest(...)` or `trpc(...)` below.
//   - `intact` (optional) checks, as A, that the row is unchanged after B's attempt (for writes).
// Operations that act only on the caller's own row (no id in the input) go in `ownRowOperations`.
import { randomBytes } from 'node:crypto';
import type { CreatedApiKey, PublicUser, UserSettings } from '@switchyard/contracts';
import { desc, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import { recordAudit } from '../src/modules/audit/audit.service.ts';
import { billingIdTakingOperations, billingOwnRowOperations } from '../src/modules/billing/billing.isolation.ts';
import { bufferIdTakingOperations, bufferOwnRowOperations } from '../src/modules/buffers/buffers.isolation.ts';
import { channelIdTakingOperations, channelOwnRowOperations } from '../src/modules/channels/channels.isolation.ts';
import {
  fulfillmentIdTakingOperations,
  fulfillmentOwnRowOperations,
} from '../src/modules/fulfillment/fulfillment.isolation.ts';
import { locationIdTakingOperations, locationOwnRowOperations } from '../src/modules/locations/locations.isolation.ts';
import { mailMessages } from '../src/modules/mail/mail.tables.ts';
import { metricsOwnRowOperations } from '../src/modules/metrics/metrics.isolation.ts';
import {
  notificationIdTakingOperations,
  notificationOwnRowOperations,
} from '../src/modules/notifications/notifications.isolation.ts';
import { orderIdTakingOperations, orderOwnRowOperations } from '../src/modules/orders/orders.isolation.ts';
import { catalogIdTakingOperations, catalogOwnRowOperations } from '../src/modules/products/catalog.isolation.ts';
import { productIdTakingOperations, productOwnRowOperations } from '../src/modules/products/products.isolation.ts';
import { returnIdTakingOperations, returnOwnRowOperations } from '../src/modules/returns/returns.isolation.ts';
import { routingIdTakingOperations, routingOwnRowOperations } from '../src/modules/routing/routing.isolation.ts';
import { shipmentIdTakingOperations, shipmentOwnRowOperations } from '../src/modules/shipments/shipments.isolation.ts';
import { syncIdTakingOperations, syncOwnRowOperations } from '../src/modules/syncs/syncs.isolation.ts';
import type { createTestApp } from './app.ts';
import type { createSignedInAccount } from './factories.ts';
import { TEST_PASSWORD } from './factories.ts';
import { trpcOver } from './trpc.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>> & {
  /** A live API key of the account (`Bearer sy_live_…`): v1/v2 entries should also try with it. */
  apiKeyHeaders: Record<string, string>;
};

export interface World {
  t: TestApp;
  /** Owns the rows. */
  a: Tenant;
  /** Tries to reach them. */
  b: Tenant;
}

export interface Outcome {
  status: number;
  body: string;
}

export interface IdTakingOperation {
  name: string;
  create(world: World): Promise<{ id: string; marker: string }>;
  attempt(world: World, id: string): Promise<Outcome>;
  intact?(world: World, id: string, marker: string): Promise<void>;
}

export interface OwnRowOperation {
  name: string;
  /** Runs as B, then checks that A's own row did not change. */
  run(world: World): Promise<void>;
}

/** A REST call, answered as status and raw body. */
export async function rest(world: World, headers: Record<string, string>, options: InjectOptions): Promise<Outcome> {
  const res = await world.t.app.inject({ ...options, headers: { ...options.headers, ...headers } });
  return { status: res.statusCode, body: res.body };
}

/** A tRPC query or mutation over HTTP, answered as status and raw body. */
export async function trpc(
  world: World,
  headers: Record<string, string>,
  kind: 'query' | 'mutation',
  path: string,
  input: unknown,
): Promise<Outcome> {
  const result = await trpcOver(world.t.app, headers)[kind](path, input);
  return { status: result.status, body: JSON.stringify(result) };
}

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

async function createKey(world: World) {
  const marker = unique('key');
  const res = await world.t.app.inject({
    method: 'POST',
    url: '/api/v1/settings/apps',
    headers: world.a.headers,
    payload: { name: marker },
  });
  const created = res.json<CreatedApiKey>();
  return { id: created.key.id, marker };
}

async function keyIntact(world: World, id: string, marker: string) {
  const res = await world.t.app.inject({ url: `/api/v1/settings/apps/${id}`, headers: world.a.headers });
  expect(res.statusCode).toBe(200);
  expect(res.json<{ name: string }>().name).toBe(marker);
}

const apiKeyOperations = (['v1', 'v2'] as const).flatMap((v): IdTakingOperation[] => [
  {
    name: `GET /api/${v}/settings/apps/{id}`,
    create: createKey,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'GET', url: `/api/${v}/settings/apps/${id}` }),
  },
  {
    name: `PUT /api/${v}/settings/apps/{id}`,
    create: createKey,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'PUT', url: `/api/${v}/settings/apps/${id}`, payload: { name: 'taken over' } }),
    intact: keyIntact,
  },
  {
    name: `DELETE /api/${v}/settings/apps/{id}`,
    create: createKey,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'DELETE', url: `/api/${v}/settings/apps/${id}` }),
    intact: keyIntact,
  },
]);

export const idTakingOperations: IdTakingOperation[] = [
  ...apiKeyOperations,
  ...channelIdTakingOperations,
  ...productIdTakingOperations,
  ...catalogIdTakingOperations,
  ...billingIdTakingOperations,
  ...bufferIdTakingOperations,
  ...locationIdTakingOperations,
  ...syncIdTakingOperations,
  ...orderIdTakingOperations,
  ...routingIdTakingOperations,
  ...notificationIdTakingOperations,
  ...returnIdTakingOperations,
  ...fulfillmentIdTakingOperations,
  ...shipmentIdTakingOperations,
  {
    name: 'apps.byId',
    create: createKey,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'apps.byId', { id }),
  },
  {
    name: 'apps.update',
    create: createKey,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'apps.update', { id, name: 'taken over' }),
    intact: keyIntact,
  },
  {
    name: 'apps.revoke',
    create: createKey,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'apps.revoke', { id }),
    intact: keyIntact,
  },
  {
    name: 'audit.byId',
    async create(w) {
      const marker = unique('audit');
      const id = await recordAudit(w.t.services.db, {
        accountId: w.a.accountId,
        actorUserId: w.a.userId,
        action: 'test.isolation',
        detail: { marker },
      });
      return { id, marker };
    },
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'audit.byId', { id }),
  },
  {
    name: 'users.confirmEmailChange with A’s code',
    async create(w) {
      const marker = `${unique('moved')}@shop.test`;
      await trpcOver(w.t.app, w.a.headers).mutation('users.requestEmailChange', {
        newEmail: marker,
        password: TEST_PASSWORD,
      });
      const [mail] = await w.t.services.db
        .select()
        .from(mailMessages)
        .where(eq(mailMessages.to, marker))
        .orderBy(desc(mailMessages.createdAt))
        .limit(1);
      const link = mail?.links.find((l) => l.includes('emailChange=')) ?? '';
      return { id: new URL(link).searchParams.get('emailChange') ?? '', marker };
    },
    attempt: (w, code) => trpc(w, w.b.headers, 'mutation', 'users.confirmEmailChange', { code }),
    async intact(w) {
      const me = await trpcOver(w.t.app, w.b.headers).query<PublicUser>('users.me');
      expect(me.data?.email).toBe(w.b.email);
    },
  },
];

async function settingsOf(world: World, tenant: Tenant) {
  return (await trpcOver(world.t.app, tenant.headers).query<PublicUser>('users.me')).data as PublicUser;
}

export const ownRowOperations: OwnRowOperation[] = [
  ...channelOwnRowOperations,
  ...productOwnRowOperations,
  ...catalogOwnRowOperations,
  ...billingOwnRowOperations,
  ...bufferOwnRowOperations,
  ...locationOwnRowOperations,
  ...syncOwnRowOperations,
  ...orderOwnRowOperations,
  ...routingOwnRowOperations,
  ...metricsOwnRowOperations,
  ...notificationOwnRowOperations,
  ...returnOwnRowOperations,
  ...fulfillmentOwnRowOperations,
  ...shipmentOwnRowOperations,
  {
    name: 'users.setColumnsFilter with A’s catalog_integration_id changes only B’s settings',
    async run(w) {
      await trpcOver(w.t.app, w.a.headers).mutation('users.setColumnsFilter', {
        catalog_integration_id: 'shared-1',
        columns: ['sku'],
      });
      const res = await trpcOver(w.t.app, w.b.headers).mutation<UserSettings>('users.setColumnsFilter', {
        catalog_integration_id: 'shared-1',
        columns: ['qty'],
      });
      expect(res.data?.columnsFilter).toEqual([{ catalog_integration_id: 'shared-1', columns: ['qty'] }]);
      expect((await settingsOf(w, w.a)).settings.columnsFilter).toContainEqual({
        catalog_integration_id: 'shared-1',
        columns: ['sku'],
      });
    },
  },
  {
    name: 'users.updateProfile changes only B',
    async run(w) {
      const before = await settingsOf(w, w.a);
      await trpcOver(w.t.app, w.b.headers).mutation('users.updateProfile', {
        firstname: 'Bea',
        lastname: 'B',
        phone: '1',
      });
      expect(await settingsOf(w, w.a)).toEqual(before);
    },
  },
  {
    name: 'account/accountUpdate changes only B’s account',
    async run(w) {
      const before = await w.t.app.inject({ url: '/api/frontend/account/catalogs', headers: w.a.headers });
      await w.t.app.inject({
        method: 'POST',
        url: '/api/frontend/account/accountUpdate',
        headers: w.b.headers,
        payload: { business: 'B renamed', city: 'Elsewhere' },
      });
      const after = await w.t.app.inject({ url: '/api/frontend/account/catalogs', headers: w.a.headers });
      expect(after.json()).toEqual(before.json());
    },
  },
  {
    name: 'audit.list and apps.list show only B’s rows',
    async run(w) {
      const apps = await trpcOver(w.t.app, w.b.headers).query<{ results: { id: string }[] }>('apps.list', {
        limit: 200,
        offset: 0,
      });
      const aKeys = await w.t.app.inject({ url: '/api/v1/settings/apps?limit=200', headers: w.a.headers });
      const aIds = aKeys.json<{ results: { id: string }[] }>().results.map((k) => k.id);
      expect(aIds.length).toBeGreaterThan(0);
      for (const k of apps.data?.results ?? []) expect(aIds).not.toContain(k.id);
      const audit = await trpcOver(w.t.app, w.b.headers).query<{ results: { action: string }[] }>('audit.list');
      expect(audit.data?.results.map((e) => e.action)).not.toContain('test.isolation');
    },
  },
];
