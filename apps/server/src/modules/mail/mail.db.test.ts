import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { startJobs } from '../../bootstrap.ts';
import { deliverMail, MAIL_SEND_JOB, queueMail } from './mail.service.ts';
import { mailMessages } from './mail.tables.ts';
import { renderMail } from './templates.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on a free loopback port, recording what it is given. */
async function startSmtp(options: { failFirst?: number } = {}) {
  const received: Received[] = [];
  let failures = options.failFirst ?? 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString('utf8');
      });
      stream.on('end', () => {
        if (failures > 0) {
          failures -= 1;
          callback(Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 }));
          return;
        }
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('mail templates', () => {
  it('renders each template as HTML and text with its link, escaping what it is given', () => {
    for (const template of ['confirm', 'reset', 'welcome'] as const) {
      const mail = renderMail({ template, firstname: '<Ada>', link: 'https://app.example/x?a=1&b=2' });
      expect(mail.text).toContain('https://app.example/x?a=1&b=2');
      expect(mail.html).toContain('https://app.example/x?a=1&amp;b=2');
      expect(mail.html).toContain('Hello &lt;Ada&gt;,');
      expect(mail.html).not.toContain('<Ada>');
      expect(mail.links).toEqual(['https://app.example/x?a=1&b=2']);
    }
    const change = renderMail({
      template: 'email_change',
      firstname: 'Ada',
      link: 'https://x/y',
      newEmail: 'new@shop.test',
    });
    expect(change.text).toContain('new@shop.test');
  });
});

describe('mail delivery', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp({ failFirst: 1 });
  });
  afterAll(() => smtp.close());

  it('sends through SMTP when configured, failing (for a retry) on a temporary error, then marks it sent', async () => {
    const t = await createTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Switchyard <hello@switchyard.test>' } });
    const id = await queueMail(t.services.db, 'owner@shop.test', {
      template: 'reset',
      firstname: 'Ada',
      link: 'https://app.test/reset/abc',
    });

    await expect(deliverMail(t.services, id)).rejects.toThrow(/busy/);
    const [afterFailure] = await t.services.db.select().from(mailMessages).where(eq(mailMessages.id, id));
    expect(afterFailure).toMatchObject({ status: 'queued', error: expect.stringContaining('busy') });

    await deliverMail(t.services, id);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]).toMatchObject({ from: 'hello@switchyard.test', to: ['owner@shop.test'] });
    expect(smtp.received[0]?.raw).toContain('Subject: Reset your Switchyard password');
    expect(smtp.received[0]?.raw).toContain('https://app.test/reset/abc');
    const [sent] = await t.services.db.select().from(mailMessages).where(eq(mailMessages.id, id));
    expect(sent).toMatchObject({ status: 'sent', error: null, sentAt: expect.any(Date) });

    // A retried job after success sends nothing twice.
    await deliverMail(t.services, id);
    expect(smtp.received).toHaveLength(1);

    expect((await t.app.inject({ url: '/api/frontend/dev/outbox' })).statusCode).toBe(404);
    await t.close();
  });

  it('keeps mail in the outbox and logs its links when no SMTP is configured', async () => {
    const t = await createTestApp();
    const id = await queueMail(t.services.db, 'owner@shop.test', {
      template: 'confirm',
      firstname: 'Ada',
      link: 'https://app.test/confirm/xyz',
    });
    await deliverMail(t.services, id);
    const [stored] = await t.services.db.select().from(mailMessages).where(eq(mailMessages.id, id));
    expect(stored?.status).toBe('stored');
    expect(t.logs.find((l) => l.mailId === id)).toMatchObject({ links: ['https://app.test/confirm/xyz'] });

    const mailbox = (await t.app.inject({ url: '/api/frontend/dev/outbox' })).json();
    expect(mailbox.enabled).toBe(true);
    expect(mailbox.messages[0]).toMatchObject({
      id,
      to: 'owner@shop.test',
      subject: 'Confirm your Switchyard account',
    });
    await t.close();
  });

  it('delivers through the job queue: registering sends its confirmation by a job', async () => {
    const t = await createTestApp({ env: { SMTP_URL: smtp.url } });
    const queue = await startJobs(t.services, { work: true });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/register/register',
      payload: {
        firstname: 'Lin',
        lastname: 'Park',
        business: 'Park Supply',
        phone: '555',
        email: 'lin@park.test',
        password: 'a long enough password',
        password2: 'a long enough password',
        agreement: true,
      },
    });
    expect(res.statusCode).toBe(201);
    const end = Date.now() + 20_000;
    while (!smtp.received.some((m) => m.to.includes('lin@park.test')) && Date.now() < end) {
      // The job is queued without waking the worker, which would take it at its next poll (a second): wake it.
      // The worker still takes the job from the queue; only the wait for its poll goes.
      queue.notify(MAIL_SEND_JOB);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(smtp.received.find((m) => m.to.includes('lin@park.test'))?.raw).toContain('Confirm your Switchyard account');
    await queue.stop();
    await t.close();
  });

  it('never opens the development mailbox in production unless told to', async () => {
    const prod = await createTestApp({ env: { NODE_ENV: 'production' } });
    expect((await prod.app.inject({ url: '/api/frontend/dev/outbox' })).statusCode).toBe(404);
    await prod.close();
    const demo = await createTestApp({ env: { NODE_ENV: 'production', DEV_MAILBOX: 'true' } });
    expect((await demo.app.inject({ url: '/api/frontend/dev/outbox' })).statusCode).toBe(200);
    await demo.close();
  });

  it('keeps the development mailbox shut on a server others can reach, unless told to open it', async () => {
    const open = await createTestApp({ env: { NODE_ENV: 'development', HOST: '0.0.0.0' } });
    expect((await open.app.inject({ url: '/api/frontend/dev/outbox' })).statusCode).toBe(404);
    await open.close();
    const local = await createTestApp({ env: { NODE_ENV: 'development', HOST: '127.0.0.1' } });
    expect((await local.app.inject({ url: '/api/frontend/dev/outbox' })).statusCode).toBe(200);
    await local.close();
    const demo = await createTestApp({ env: { NODE_ENV: 'development', HOST: '0.0.0.0', DEV_MAILBOX: 'true' } });
    expect((await demo.app.inject({ url: '/api/frontend/dev/outbox' })).statusCode).toBe(200);
    await demo.close();
  });
});
