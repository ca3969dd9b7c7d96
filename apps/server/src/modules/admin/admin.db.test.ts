import type {
  AccountCatalogs,
  ActAsOutput,
  AdminAccount,
  AdminAccountList,
  AdminUser,
  AuditList,
  BasicData,
} from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createAccount, createSignedInAccount, signIn } from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { users } from '../accounts/accounts.tables.ts';
import { actingSessions } from './admin.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Signed = Awaited<ReturnType<typeof createSignedInAccount>>;

describe('superusers and super admins', () => {
  let t: TestApp;
  let superuser: Signed;
  let superAdmin: Signed;
  let merchant: Signed;

  beforeAll(async () => {
    t = await createTestApp();
    superuser = await createSignedInAccount(t.services, { authorizationLevel: 'superuser', business: 'Ops' });
    superAdmin = await createSignedInAccount(t.services, {
      authorizationLevel: 'superuser',
      superUserRole: 'admin',
      business: 'Ops HQ',
    });
    merchant = await createSignedInAccount(t.services, { business: 'Zebra Bikes 100% Ltd' });
  });
  afterAll(() => t.close());

  const as = (who: { headers: Record<string, string> }) => trpcOver(t.app, who.headers);

  it('keeps admin.* from ordinary users and from anonymous callers', async () => {
    const refused = await as(merchant).query('admin.accounts.list', {});
    expect(refused.status).toBe(403);
    expect((await trpcOver(t.app).query('admin.accounts.list', {})).status).toBe(401);
    const act = await as(merchant).mutation('admin.actAs', { accountId: superuser.accountId, reason: 'curious' });
    expect(act.status).toBe(403);
  });

  it('lists and searches every account by business name or user e-mail, with a total', async () => {
    const byName = await as(superuser).query<AdminAccountList>('admin.accounts.list', { search: 'zebra bikes 100%' });
    expect(byName.data?.total).toBe(1);
    expect(byName.data?.results[0]).toMatchObject({
      id: merchant.accountId,
      business: 'Zebra Bikes 100% Ltd',
      users: [{ id: merchant.userId, email: merchant.email, authorizationLevel: 'user' }],
    });
    const byEmail = await as(superuser).query<AdminAccountList>('admin.accounts.list', {
      search: merchant.email.toUpperCase(),
    });
    expect(byEmail.data?.results.map((a) => a.id)).toEqual([merchant.accountId]);
    // A LIKE wildcard in the search is taken literally.
    const wildcard = await as(superuser).query<AdminAccountList>('admin.accounts.list', { search: '_%' });
    expect(wildcard.data?.total).toBe(0);

    const page = await as(superuser).query<AdminAccountList>('admin.accounts.list', { limit: 2, offset: 0 });
    expect(page.data?.results).toHaveLength(2);
    expect(page.data?.total).toBeGreaterThanOrEqual(3);
    const next = await as(superuser).query<AdminAccountList>('admin.accounts.list', { limit: 2, offset: 2 });
    expect(next.data?.results.map((a) => a.id)).not.toContain(page.data?.results[0]?.id);
  });

  it('gets any account by id; an unknown id is NOT_FOUND', async () => {
    const got = await as(superuser).query<AdminAccount>('admin.accounts.get', { id: merchant.accountId });
    expect(got.data).toMatchObject({ id: merchant.accountId, users: [{ email: merchant.email }] });
    expect((await as(superuser).query('admin.accounts.get', { id: 'acc_nope' })).status).toBe(404);
  });

  it('acts as an account for an hour, leaving an audit entry the account can read', async () => {
    const short = await as(superuser).mutation('admin.actAs', { accountId: merchant.accountId, reason: 'why' });
    expect(short.status).toBe(400);
    expect((await as(superuser).mutation('admin.actAs', { accountId: 'acc_nope', reason: 'ticket 42' })).status).toBe(
      404,
    );

    const acted = await as(superuser).mutation<ActAsOutput>('admin.actAs', {
      accountId: merchant.accountId,
      reason: 'Support ticket #4711',
    });
    expect(acted.status).toBe(200);
    const out = acted.data as ActAsOutput;
    expect(out.account).toEqual({ id: merchant.accountId, business: 'Zebra Bikes 100% Ltd', status: 'active' });
    const claims = decodeJwt(out.token);
    expect(claims.accountId).toBe(merchant.accountId);
    expect(claims.sub).toBe(superuser.userId);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);
    expect(Math.abs(new Date(out.expiresAt).getTime() - Date.now() - 3600_000)).toBeLessThan(60_000);

    const acting = { headers: { authorization: `Bearer ${out.token}` } };
    const catalogs = await as(acting).query<AccountCatalogs>('account.catalogs');
    expect(catalogs.data?.account.id).toBe(merchant.accountId);
    const rest = await t.app.inject({ url: '/api/frontend/account/catalogs', headers: acting.headers });
    expect(rest.json<AccountCatalogs>().account.id).toBe(merchant.accountId);

    const log = await as(merchant).query<AuditList>('audit.list');
    expect(log.data?.results[0]).toMatchObject({
      action: 'superuser.act_as',
      actor: { id: superuser.userId, email: superuser.email },
      detail: { reason: 'Support ticket #4711' },
    });
    // The superuser's own account has no such entry.
    const own = await as(superuser).query<AuditList>('audit.list');
    expect(own.data?.results.filter((e) => e.action === 'superuser.act_as')).toEqual([]);

    // The web app loads its basic data while acting: the superuser's user, the merchant's account.
    const basic = await as(acting).query<{ user: { id: string }; account: { id: string }; meta: object }>(
      'hydration.getBasicData',
    );
    expect(basic.status).toBe(200);
    expect(basic.data).toMatchObject({
      user: { id: superuser.userId },
      account: { id: merchant.accountId },
      meta: { authorizationLevel: 'superuser' },
    });

    // Signing out while acting ends the acting session, and the account's log says so.
    const out2 = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/logout',
      headers: acting.headers,
      payload: {},
    });
    expect(out2.statusCode).toBe(200);
    expect((await as(acting).query('hydration.getBasicData')).status).toBe(401);
    const after = await as(merchant).query<AuditList>('audit.list');
    expect(after.data?.results[0]).toMatchObject({ action: 'superuser.act_as_end' });
  });

  it('an acting session ends when it expires or the superuser is demoted', async () => {
    const helper = await createSignedInAccount(t.services, { authorizationLevel: 'superuser' });
    const act = async () =>
      (
        await as(helper).mutation<ActAsOutput>('admin.actAs', {
          accountId: merchant.accountId,
          reason: 'checking stock',
        })
      ).data as ActAsOutput;
    const first = await act();
    const headers = { authorization: `Bearer ${first.token}` };
    expect((await trpcOver(t.app, headers).query('account.catalogs')).status).toBe(200);
    await t.services.db
      .update(actingSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(actingSessions.userId, helper.userId));
    expect((await trpcOver(t.app, headers).query('account.catalogs')).status).toBe(401);

    const second = await act();
    await t.services.db.update(users).set({ authorizationLevel: 'user' }).where(eq(users.id, helper.userId));
    const demoted = await trpcOver(t.app, { authorization: `Bearer ${second.token}` }).query('account.catalogs');
    expect(demoted.status).toBe(401);
  });

  it('admin.endActing ends the acting session at once and says so in the audit log', async () => {
    const acted = await as(superuser).mutation<ActAsOutput>('admin.actAs', {
      accountId: merchant.accountId,
      reason: 'done in a minute',
    });
    const headers = { authorization: `Bearer ${acted.data?.token}` };
    expect((await trpcOver(t.app, headers).mutation('admin.endActing')).data).toEqual({ ended: true });
    expect((await trpcOver(t.app, headers).query('account.catalogs')).status).toBe(401);
    const log = await as(merchant).query<AuditList>('audit.list');
    expect(log.data?.results[0]).toMatchObject({ action: 'superuser.act_as_end', actor: { id: superuser.userId } });
    // From an ordinary session there is nothing to end.
    expect((await as(superuser).mutation('admin.endActing')).data).toEqual({ ended: false });
  });

  it('only a super admin sets system settings, modules and superusers', async () => {
    expect((await as(superuser).mutation('admin.systemSettings.set', { key: 'x', value: 1 })).status).toBe(403);
    expect(
      (await as(superuser).mutation('admin.modules.set', { dev_name: 'x', name: 'X', enabled: true })).status,
    ).toBe(403);
    expect(
      (
        await as(superuser).mutation('admin.users.setSuperuser', {
          userId: superuser.userId,
          authorizationLevel: 'superuser',
          superUserRole: 'admin',
        })
      ).status,
    ).toBe(403);
  });

  it('refuses a system setting of null with a 400 and a message, not a 500 (the column holds a value)', async () => {
    const res = await as(superAdmin).mutation('admin.systemSettings.set', { key: 'maintenance.banner', value: null });
    expect(res.status).toBe(400);
    expect(res.error?.message).toContain('Give a value');
  });

  it('system settings and modules reach every user basic data, and are audited', async () => {
    const set = await as(superAdmin).mutation('admin.systemSettings.set', {
      key: 'maintenance.banner',
      value: { text: 'Down at 2am' },
    });
    expect(set.data).toEqual({ key: 'maintenance.banner', value: { text: 'Down at 2am' } });
    await as(superAdmin).mutation('admin.systemSettings.set', { key: 'maintenance.banner', value: { text: 'Later' } });
    await as(superAdmin).mutation('admin.modules.set', { dev_name: 'returns', name: 'Returns', enabled: true });
    await as(superAdmin).mutation('admin.modules.set', { dev_name: 'exports', name: 'Exports', enabled: false });
    const bad = await as(superAdmin).mutation('admin.modules.set', { dev_name: 'Bad Name', name: 'x', enabled: true });
    expect(bad.status).toBe(400);

    const basic = await as(merchant).query<BasicData>('hydration.getBasicData');
    expect(basic.data?.systemSettings).toContainEqual({ key: 'maintenance.banner', value: { text: 'Later' } });
    expect(basic.data?.modules).toEqual(
      expect.arrayContaining([
        { dev_name: 'exports', name: 'Exports', enabled: false },
        { dev_name: 'returns', name: 'Returns', enabled: true },
      ]),
    );

    const log = await as(superAdmin).query<AuditList>('audit.list', { limit: 10, offset: 0 });
    expect(log.data?.results.map((e) => e.action)).toEqual([
      'modules.set',
      'modules.set',
      'system_settings.set',
      'system_settings.set',
    ]);
    expect(log.data?.total).toBe(4);
    const paged = await as(superAdmin).query<AuditList>('audit.list', { limit: 1, offset: 3 });
    expect(paged.data?.results[0]).toMatchObject({
      action: 'system_settings.set',
      detail: { key: 'maintenance.banner' },
    });
  });

  it('grants and takes superuser rights, effective at once, audited in that user account', async () => {
    const staff = await createSignedInAccount(t.services);
    expect((await as(staff).query('admin.accounts.list', {})).status).toBe(403);
    const granted = await as(superAdmin).mutation<AdminUser>('admin.users.setSuperuser', {
      userId: staff.userId,
      authorizationLevel: 'superuser',
      superUserRole: null,
    });
    expect(granted.data).toMatchObject({ id: staff.userId, authorizationLevel: 'superuser', superUserRole: null });
    expect((await as(staff).query('admin.accounts.list', {})).status).toBe(200);
    const relogged = await signIn(t.services, staff.email);
    expect(relogged.meta).toEqual({ authorizationLevel: 'superuser', superUserRole: null });

    const log = await as(staff).query<AuditList>('audit.list');
    expect(log.data?.results[0]).toMatchObject({
      action: 'users.set_superuser',
      actor: { id: superAdmin.userId },
      detail: { userId: staff.userId, to: { authorizationLevel: 'superuser', superUserRole: null } },
    });

    await as(superAdmin).mutation('admin.users.setSuperuser', {
      userId: staff.userId,
      authorizationLevel: 'user',
      superUserRole: null,
    });
    expect((await as(staff).query('admin.accounts.list', {})).status).toBe(403);
  });

  it('refuses an admin role without superuser, an unknown user, and dropping one own admin role', async () => {
    const someone = await createAccount(t.services);
    const mismatched = await as(superAdmin).mutation('admin.users.setSuperuser', {
      userId: someone.userId,
      authorizationLevel: 'user',
      superUserRole: 'admin',
    });
    expect(mismatched.status).toBe(400);
    const unknown = await as(superAdmin).mutation('admin.users.setSuperuser', {
      userId: 'usr_nope',
      authorizationLevel: 'superuser',
      superUserRole: null,
    });
    expect(unknown.status).toBe(404);
    const self = await as(superAdmin).mutation('admin.users.setSuperuser', {
      userId: superAdmin.userId,
      authorizationLevel: 'superuser',
      superUserRole: null,
    });
    expect(self.status).toBe(400);
    expect(self.error?.message).toBe('You cannot remove your own super admin role.');
  });
});
