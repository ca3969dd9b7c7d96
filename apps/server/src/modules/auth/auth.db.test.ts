import { AUTH_MESSAGES, FORM_MESSAGES, MESSAGES } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { seedSignInFailures } from '../../../test/factories.ts';
import { accounts, authAttempts, authCodes, users } from '../accounts/accounts.tables.ts';
import { SIGN_IN_FAILURES_PER_HOUR } from './auth.service.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let n = 0;
const form = (overrides: Record<string, unknown> = {}) => {
  n += 1;
  return {
    firstname: 'Grace',
    lastname: 'Hopper',
    business: 'Harbor Outfitters',
    phone: '+1 555 0199',
    email: `grace${n}-${Date.now()}@harbor.test`,
    password: 'a long enough password',
    password2: 'a long enough password',
    agreement: true,
    ...overrides,
  };
};

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `/api/frontend/${url}`, payload: payload as object, headers });

const trpc = {
  query: (path: string, input: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ url: `/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, headers }),
  mutate: (path: string, input: unknown) =>
    t.app.inject({ method: 'POST', url: `/api/trpc/${path}`, payload: { json: input } }),
};

/** The newest message to an address, as the development mailbox shows it, and the code in its link. */
async function lastMailTo(to: string) {
  const res = await t.app.inject({ url: '/api/frontend/dev/outbox' });
  const message = (res.json().messages as { to: string; subject: string; links: string[]; text: string }[]).find(
    (m) => m.to === to,
  );
  if (!message) throw new Error(`no mail to ${to}`);
  const code = message.links[0]?.split('/').pop() ?? '';
  return { ...message, code };
}

async function registerAndConfirm(overrides: Record<string, unknown> = {}) {
  const body = form(overrides);
  expect((await post('register/register', body)).statusCode).toBe(201);
  const { code } = await lastMailTo(body.email);
  expect((await post('register/confirmEmail', { code })).statusCode).toBe(200);
  return body;
}

describe('registration', () => {
  it('creates an unconfirmed account and mails a confirmation link', async () => {
    const body = form();
    const res = await post('register/register', body);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ email: body.email });

    const [user] = await t.services.db.select().from(users).where(eq(users.email, body.email));
    expect(user?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const [account] = await t.services.db
      .select()
      .from(accounts)
      .where(eq(accounts.id, user?.accountId ?? ''));
    expect(account).toMatchObject({ business: 'Harbor Outfitters', status: 'created' });

    const mail = await lastMailTo(body.email);
    expect(mail.subject).toBe('Confirm your Switchyard account');
    expect(mail.links[0]).toMatch(/^http:\/\/127\.0\.0\.1:9\/confirm\/[A-Za-z0-9_-]{43}$/);
    expect(mail.text).toContain(mail.links[0]);
    // Only a hash of the code is stored.
    const codes = await t.services.db
      .select()
      .from(authCodes)
      .where(eq(authCodes.userId, user?.id ?? ''));
    expect(codes.map((c) => c.codeHash)).not.toContain(mail.code);
  });

  it('answers each rule of the form with its exact message', async () => {
    const res = await post(
      'register/register',
      form({ firstname: '  ', phone: '', password: 'short', password2: 'other', agreement: false }),
    );
    expect(res.statusCode).toBe(400);
    const { message } = res.json();
    expect(message).toContain(`firstname: ${FORM_MESSAGES.required}`);
    expect(message).toContain(`phone: ${FORM_MESSAGES.required}`);
    expect(message).toContain(`password: ${FORM_MESSAGES.passwordTooShort}`);
    expect(message).toContain(`agreement: ${FORM_MESSAGES.agreement}`);

    const mismatch = await post('register/register', form({ password2: 'a different long password' }));
    expect(mismatch.json().message).toContain(`password2: ${FORM_MESSAGES.passwordsDiffer}`);
  });

  it('refuses an address that is already in use, whatever its case', async () => {
    const body = form();
    await post('register/register', body);
    const again = await post('register/register', form({ email: body.email.toUpperCase() }));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 409, message: AUTH_MESSAGES.emailTaken });
  });
});

describe('confirmation', () => {
  it('checks and confirms a code once, moving the account on to choosing a plan', async () => {
    const body = form();
    await post('register/register', body);
    const { code } = await lastMailTo(body.email);

    expect((await trpc.query('auth.checkConfirmationCode', { code })).json().result.data.json).toEqual({ valid: true });
    const confirmed = await trpc.mutate('auth.confirmRegistration', { code });
    expect(confirmed.json().result.data.json).toEqual({ confirmed: true });

    const [user] = await t.services.db.select().from(users).where(eq(users.email, body.email));
    const [account] = await t.services.db
      .select()
      .from(accounts)
      .where(eq(accounts.id, user?.accountId ?? ''));
    expect(account?.status).toBe('requires_payment_method');
    expect((await lastMailTo(body.email)).subject).toBe('Welcome to Switchyard');

    expect((await trpc.query('auth.checkConfirmationCode', { code })).json().result.data.json).toEqual({
      valid: false,
    });
    const twice = await post('register/confirmEmail', { code });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().message).toBe(AUTH_MESSAGES.invalidConfirmation);
  });

  it('resends a fresh link that replaces the old one, and throttles resends', async () => {
    const body = form();
    await post('register/register', body);
    const first = await lastMailTo(body.email);
    expect((await post('register/sendConfirmEmail', { email: body.email })).json()).toEqual({ ok: true });
    const second = await lastMailTo(body.email);
    expect(second.code).not.toBe(first.code);
    expect((await post('register/confirmEmail', { code: first.code })).statusCode).toBe(400);

    // Registration counts as the first send; five in an hour is the limit.
    for (let i = 0; i < 3; i++)
      expect((await post('register/sendConfirmEmail', { email: body.email })).statusCode).toBe(200);
    const throttled = await post('register/sendConfirmEmail', { email: body.email });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json().message).toBe(AUTH_MESSAGES.requestThrottled);
  });

  it('answers a resend for an unknown address the same way, sending nothing', async () => {
    const res = await post('register/sendConfirmEmail', { email: 'nobody@nowhere.test' });
    expect(res.json()).toEqual({ ok: true });
    await expect(lastMailTo('nobody@nowhere.test')).rejects.toThrow('no mail');
  });
});

describe('sign-in and sessions', () => {
  it('signs in with the right password and answers the session, user, roles and account', async () => {
    const body = await registerAndConfirm();
    const res = await post('login', { email: body.email.toUpperCase(), password: body.password });
    expect(res.statusCode).toBe(200);
    const out = res.json();
    expect(out).toMatchObject({
      token: expect.any(String),
      user: { email: body.email, firstname: 'Grace', settings: { columnsFilter: [] } },
      meta: { authorizationLevel: 'user', superUserRole: null },
      account: { business: 'Harbor Outfitters', status: 'requires_payment_method' },
    });
    expect(JSON.stringify(out)).not.toContain('argon2');

    const basic = await trpc.query('hydration.getBasicData', undefined, { authorization: `Bearer ${out.token}` });
    expect(basic.json().result.data.json).toMatchObject({
      user: { email: body.email },
      meta: { authorizationLevel: 'user', superUserRole: null },
      account: { status: 'requires_payment_method' },
      systemSettings: [],
      accountSettings: [],
      modules: [],
    });
  });

  it('says the same for a wrong password and an unknown address', async () => {
    const body = await registerAndConfirm();
    const wrong = await post('login', { email: body.email, password: 'not the password' });
    const unknown = await post('login', { email: 'ghost@harbor.test', password: 'whatever it is' });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ code: 401, message: AUTH_MESSAGES.wrongCredentials });
    }
  });

  it(`refuses sign-in after ${SIGN_IN_FAILURES_PER_HOUR} failures in an hour, even with the right password`, async () => {
    const body = await registerAndConfirm();
    await seedSignInFailures(t.services, body.email, SIGN_IN_FAILURES_PER_HOUR - 1, '203.0.113.9');
    expect((await post('login', { email: body.email, password: 'wrong again!' })).statusCode).toBe(401);
    const blocked = await post('login', { email: body.email, password: body.password });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toBe(AUTH_MESSAGES.signInThrottled);
  });

  it('lets no more wrong passwords through than the limit when they all arrive at once', async () => {
    const body = await registerAndConfirm();
    await seedSignInFailures(t.services, body.email, SIGN_IN_FAILURES_PER_HOUR - 5, '203.0.113.10');
    // 40 guesses sent together with 5 left: at most 5 are tried (on PGlite, which takes them one by one, exactly 5;
    // on a server, attempts that see each other may all be refused), the rest refused before any is checked.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => post('login', { email: body.email, password: `guess number ${i}` })),
    );
    const codes = answers.map((res) => res.statusCode);
    const tried = codes.filter((code) => code === 401).length;
    expect(tried).toBeLessThanOrEqual(5);
    expect(codes.filter((code) => code === 429)).toHaveLength(40 - tried);
    const counted = await t.services.db.select().from(authAttempts).where(eq(authAttempts.email, body.email));
    expect(counted.filter((row) => row.kind === 'sign_in_failure')).toHaveLength(SIGN_IN_FAILURES_PER_HOUR - 5 + tried);
  });

  it('does not count a sign-in whose password was right', async () => {
    const body = await registerAndConfirm();
    expect((await post('login', { email: body.email, password: body.password })).statusCode).toBe(200);
    const counted = await t.services.db.select().from(authAttempts).where(eq(authAttempts.email, body.email));
    expect(counted.filter((row) => row.kind === 'sign_in_failure')).toHaveLength(0);
  });

  it('ends the session on sign-out', async () => {
    const body = await registerAndConfirm();
    const { token } = (await post('login', { email: body.email, password: body.password })).json();
    const headers = { authorization: `Bearer ${token}` };
    expect((await trpc.query('hydration.getBasicData', undefined, headers)).statusCode).toBe(200);
    expect((await post('logout', {}, headers)).json()).toEqual({ ok: true });
    const after = await trpc.query('hydration.getBasicData', undefined, headers);
    expect(after.statusCode).toBe(401);
    expect(after.json().error.json.data.code).toBe('UNAUTHORIZED');
  });
});

describe('password reset', () => {
  it('resets with a mailed code once, ends every session, and the new password signs in', async () => {
    const body = await registerAndConfirm();
    const { token: oldToken } = (await post('login', { email: body.email, password: body.password })).json();

    expect((await post('reset/getCode', { email: body.email })).json()).toEqual({ ok: true });
    const mail = await lastMailTo(body.email);
    expect(mail.subject).toBe('Reset your Switchyard password');
    expect((await post('reset/checkCode', { token: mail.code })).json()).toEqual({ valid: true });

    const tooShort = await post('reset/updatePassword', { token: mail.code, password: 'short' });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.json().message).toContain(FORM_MESSAGES.passwordTooShort);

    expect((await post('reset/updatePassword', { token: mail.code, password: 'a brand new password' })).json()).toEqual(
      { ok: true },
    );
    const again = await post('reset/updatePassword', { token: mail.code, password: 'yet another password' });
    expect(again.json()).toEqual({ code: 400, message: MESSAGES.invalidResetCode });

    expect(
      (await trpc.query('hydration.getBasicData', undefined, { authorization: `Bearer ${oldToken}` })).statusCode,
    ).toBe(401);
    expect((await post('login', { email: body.email, password: body.password })).statusCode).toBe(401);
    expect((await post('login', { email: body.email, password: 'a brand new password' })).statusCode).toBe(200);
  });

  it('refuses a code older than an hour with the exact message', async () => {
    const body = await registerAndConfirm();
    await post('reset/getCode', { email: body.email });
    const { code } = await lastMailTo(body.email);
    await t.services.db
      .update(authCodes)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authCodes.purpose, 'reset'));
    for (const url of ['reset/checkCode', 'reset/updatePassword']) {
      const res = await post(url, { token: code, password: 'a brand new password' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(MESSAGES.invalidResetCode);
    }
  });

  it('answers the same whether or not the address has an account', async () => {
    const res = await post('reset/getCode', { email: 'no-such-owner@harbor.test' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });
});
