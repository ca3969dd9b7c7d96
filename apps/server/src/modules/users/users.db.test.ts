import { ACCOUNT_MESSAGES, AUTH_MESSAGES, type PublicUser, type UserSettings } from '@switchyard/contracts';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import {
  createAccount,
  createSignedInAccount,
  seedSignInFailures,
  signIn,
  TEST_PASSWORD,
} from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { authCodes, users } from '../accounts/accounts.tables.ts';
import { SIGN_IN_FAILURES_PER_HOUR } from '../auth/auth.service.ts';
import { hashCode } from '../auth/codes.ts';
import { mailMessages } from '../mail/mail.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

describe('the signed-in user profile', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_URL: 'https://app.switchyard.test' } });
  });
  afterAll(() => t.close());

  const lastMailTo = async (to: string) =>
    (
      await t.services.db
        .select()
        .from(mailMessages)
        .where(eq(mailMessages.to, to))
        .orderBy(desc(mailMessages.createdAt))
        .limit(1)
    )[0];

  it('updates name and phone', async () => {
    const owner = await createSignedInAccount(t.services);
    const api = trpcOver(t.app, owner.headers);
    const res = await api.mutation<PublicUser>('users.updateProfile', {
      firstname: ' Grace ',
      lastname: 'Hopper',
      phone: '+1 555 0199',
    });
    expect(res.data).toMatchObject({ id: owner.userId, firstname: 'Grace', lastname: 'Hopper', phone: '+1 555 0199' });
    const empty = await api.mutation('users.updateProfile', { firstname: '', lastname: 'x', phone: '1' });
    expect(empty.status).toBe(400);
  });

  it('counts wrong current passwords with failed sign-ins and stops guessing at the limit', async () => {
    const owner = await createSignedInAccount(t.services);
    await seedSignInFailures(t.services, owner.email, SIGN_IN_FAILURES_PER_HOUR - 1, '198.51.100.7');
    const api = trpcOver(t.app, owner.headers);
    const wrong = await api.mutation('users.changePassword', {
      currentPassword: 'guess number 100',
      newPassword: 'a brand new password',
    });
    expect(wrong.status).toBe(400);
    const blocked = await api.mutation('users.requestEmailChange', {
      newEmail: 'new@shop.test',
      password: TEST_PASSWORD,
    });
    expect(blocked.status).toBe(429);
    expect(blocked.error?.message).toBe(AUTH_MESSAGES.signInThrottled);
  });

  it('changes the password with the current one and ends the other sessions only', async () => {
    const owner = await createSignedInAccount(t.services);
    const other = await signIn(t.services, owner.email);
    const api = trpcOver(t.app, owner.headers);

    const wrong = await api.mutation('users.changePassword', {
      currentPassword: 'not the password',
      newPassword: 'a brand new password',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.error?.message).toBe(ACCOUNT_MESSAGES.wrongCurrentPassword);
    expect(wrong.error?.data.domainCode).toBe('VALIDATION');

    const short = await api.mutation('users.changePassword', { currentPassword: TEST_PASSWORD, newPassword: 'short' });
    expect(short.status).toBe(400);

    const ok = await api.mutation('users.changePassword', {
      currentPassword: TEST_PASSWORD,
      newPassword: 'a brand new password',
    });
    expect(ok.status).toBe(200);
    expect((await trpcOver(t.app, owner.headers).query('users.me')).status).toBe(200);
    expect((await trpcOver(t.app, other.headers).query('users.me')).status).toBe(401);
    await expect(signIn(t.services, owner.email)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(signIn(t.services, owner.email, 'a brand new password')).resolves.toMatchObject({
      user: { id: owner.userId },
    });
  });

  it('changes the e-mail address only once the link sent to the new address is followed', async () => {
    const owner = await createSignedInAccount(t.services);
    const api = trpcOver(t.app, owner.headers);
    const newEmail = `moved-${owner.userId.slice(-6)}@shop.test`;

    const wrongPassword = await api.mutation('users.requestEmailChange', { newEmail, password: 'nope nope nope' });
    expect(wrongPassword.error?.message).toBe(ACCOUNT_MESSAGES.wrongCurrentPassword);

    const asked = await api.mutation('users.requestEmailChange', {
      newEmail: newEmail.toUpperCase(),
      password: TEST_PASSWORD,
    });
    expect(asked.data).toEqual({ ok: true, newEmail });
    const mail = await lastMailTo(newEmail);
    expect(mail?.template).toBe('email_change');
    const link = mail?.links.find((l) => l.includes('emailChange='));
    expect(link).toMatch(/^https:\/\/app\.switchyard\.test\/settings\/profile\?emailChange=[A-Za-z0-9_-]{43}$/);
    const code = new URL(link as string).searchParams.get('emailChange') as string;

    const [stored] = await t.services.db
      .select()
      .from(authCodes)
      .where(and(eq(authCodes.userId, owner.userId), eq(authCodes.purpose, 'email_change')));
    expect(stored).toMatchObject({ codeHash: hashCode(code), newEmail });
    const ttl = (stored?.expiresAt.getTime() ?? 0) - (stored?.createdAt.getTime() ?? 0);
    expect(Math.abs(ttl - 24 * 3600_000)).toBeLessThan(60_000);

    // Not yet: the old address still signs in.
    expect((await api.query<PublicUser>('users.me')).data?.email).toBe(owner.email);

    const confirmed = await api.mutation<PublicUser>('users.confirmEmailChange', { code });
    expect(confirmed.data?.email).toBe(newEmail);
    await expect(signIn(t.services, newEmail)).resolves.toMatchObject({ user: { email: newEmail } });
    await expect(signIn(t.services, owner.email)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });

    const reused = await api.mutation('users.confirmEmailChange', { code });
    expect(reused.status).toBe(404);
    expect(reused.error?.message).toBe(ACCOUNT_MESSAGES.invalidEmailChange);
  });

  it('refuses an address that is taken, and one taken after the link was sent', async () => {
    const owner = await createSignedInAccount(t.services);
    const someone = await createAccount(t.services);
    const api = trpcOver(t.app, owner.headers);
    const taken = await api.mutation('users.requestEmailChange', { newEmail: someone.email, password: TEST_PASSWORD });
    expect(taken.status).toBe(409);
    expect(taken.error?.message).toBe(AUTH_MESSAGES.emailTaken);
    const same = await api.mutation('users.requestEmailChange', { newEmail: owner.email, password: TEST_PASSWORD });
    expect(same.error?.message).toBe(ACCOUNT_MESSAGES.sameEmail);

    const newEmail = `race-${owner.userId.slice(-6)}@shop.test`;
    await api.mutation('users.requestEmailChange', { newEmail, password: TEST_PASSWORD });
    const code = new URL(
      ((await lastMailTo(newEmail))?.links ?? []).find((l) => l.includes('emailChange=')) as string,
    ).searchParams.get('emailChange');
    await t.services.db.update(users).set({ email: newEmail }).where(eq(users.id, someone.userId));
    const late = await api.mutation('users.confirmEmailChange', { code });
    expect(late.status).toBe(409);
    expect(late.error?.message).toBe(AUTH_MESSAGES.emailTaken);
  });

  it('an expired e-mail change link does nothing', async () => {
    const owner = await createSignedInAccount(t.services);
    const api = trpcOver(t.app, owner.headers);
    const newEmail = `late-${owner.userId.slice(-6)}@shop.test`;
    await api.mutation('users.requestEmailChange', { newEmail, password: TEST_PASSWORD });
    const code = new URL(
      ((await lastMailTo(newEmail))?.links ?? []).find((l) => l.includes('emailChange=')) as string,
    ).searchParams.get('emailChange');
    await t.services.db
      .update(authCodes)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authCodes.userId, owner.userId));
    const res = await api.mutation('users.confirmEmailChange', { code });
    expect(res.status).toBe(404);
    expect((await api.query<PublicUser>('users.me')).data?.email).toBe(owner.email);
  });

  it('setColumnsFilter replaces the entry of the same catalog integration or appends one, and keeps it', async () => {
    const owner = await createSignedInAccount(t.services);
    const api = trpcOver(t.app, owner.headers);
    await api.mutation('users.setColumnsFilter', { catalog_integration_id: 7, columns: ['sku', 'qty'] });
    await api.mutation('users.setColumnsFilter', { catalog_integration_id: 'shop-2', columns: ['title'] });
    const res = await api.mutation<UserSettings>('users.setColumnsFilter', {
      catalog_integration_id: '7',
      columns: ['sku'],
    });
    expect(res.data).toEqual({
      columnsFilter: [
        { catalog_integration_id: '7', columns: ['sku'] },
        { catalog_integration_id: 'shop-2', columns: ['title'] },
      ],
    });
    const basic = await api.query<{ user: PublicUser }>('hydration.getBasicData');
    expect(basic.data?.user.settings).toEqual(res.data);
  });
});
