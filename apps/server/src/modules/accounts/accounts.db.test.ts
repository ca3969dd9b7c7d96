import type { AccountCatalogs, AccountDetails } from '@switchyard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { accountSettings } from './accounts.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

describe('account business details', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET account/catalogs answers the account object and its settings list', async () => {
    const owner = await createSignedInAccount(t.services, { business: 'Corner Shop', status: 'active' });
    await t.services.db.insert(accountSettings).values([
      { accountId: owner.accountId, key: 'b.second', value: 2 },
      { accountId: owner.accountId, key: 'a.first', value: { on: true } },
    ]);
    const res = await t.app.inject({ url: '/api/frontend/account/catalogs', headers: owner.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json<AccountCatalogs>()).toEqual({
      account: {
        id: owner.accountId,
        business: 'Corner Shop',
        status: 'active',
        phone: null,
        addressLine1: null,
        city: null,
        postcode: null,
        country: null,
        timezone: 'UTC',
        currency: 'USD',
      },
      accountSettings: [
        { key: 'a.first', value: { on: true } },
        { key: 'b.second', value: 2 },
      ],
    });
    const anonymous = await t.app.inject({ url: '/api/frontend/account/catalogs' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('PUT account/catalogs changes business details only, never the status', async () => {
    const owner = await createSignedInAccount(t.services, { status: 'requires_payment_method' });
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/frontend/account/catalogs',
      headers: owner.headers,
      payload: { business: '  Renamed Ltd ', country: 'gb', currency: 'gbp', status: 'active' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<AccountCatalogs>().account).toMatchObject({
      business: 'Renamed Ltd',
      country: 'GB',
      currency: 'GBP',
      status: 'requires_payment_method',
    });
  });

  it('POST account/accountUpdate saves phone, address, time zone and currency, and clears blanks', async () => {
    const owner = await createSignedInAccount(t.services);
    const update = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/frontend/account/accountUpdate', headers: owner.headers, payload });
    const res = await update({
      phone: '+44 20 7946 0000',
      addressLine1: '1 High Street',
      city: 'London',
      postcode: 'N1 9GU',
      country: 'GB',
      timezone: 'Europe/London',
      currency: 'EUR',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ account: AccountDetails }>().account).toMatchObject({
      phone: '+44 20 7946 0000',
      addressLine1: '1 High Street',
      city: 'London',
      postcode: 'N1 9GU',
      country: 'GB',
      timezone: 'Europe/London',
      currency: 'EUR',
    });
    const cleared = await update({ phone: '' });
    expect(cleared.json<{ account: AccountDetails }>().account).toMatchObject({ phone: null, city: 'London' });

    for (const bad of [{ business: ' ' }, { timezone: 'Mars/Olympus' }, { country: 'GBR' }, { currency: 'EURO' }]) {
      const refused = await update(bad);
      expect(refused.statusCode, JSON.stringify(bad)).toBe(400);
    }
    const tz = await update({ timezone: 'Mars/Olympus' });
    expect(tz.json<{ message: string }>().message).toContain('Unknown time zone');
  });

  it('account.catalogs and account.update over tRPC work on the same service', async () => {
    const owner = await createSignedInAccount(t.services);
    const api = trpcOver(t.app, owner.headers);
    const updated = await api.mutation<AccountDetails>('account.update', { city: 'Leeds' });
    expect(updated.data?.city).toBe('Leeds');
    const catalogs = await api.query<AccountCatalogs>('account.catalogs');
    expect(catalogs.data?.account).toMatchObject({ id: owner.accountId, city: 'Leeds' });
  });
});
