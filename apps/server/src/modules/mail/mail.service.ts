import { desc, eq } from 'drizzle-orm';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { mailMessages } from './mail.tables.ts';
import { type MailTemplate, type RenderedMail, renderMail } from './templates.ts';

export const MAIL_SEND_JOB = 'mail.send';

/**
 * Writes a message to the outbox (pass the transaction of its cause) and returns its id; call
 * `dispatchMail` after commit so a rolled-back cause never sends anything.
 */
export async function queueMail(db: Db, to: string, mail: MailTemplate, accountId?: string): Promise<string> {
  const rendered = renderMail(mail);
  const id = newId('msg');
  await db.insert(mailMessages).values({ id, accountId, to, template: mail.template, ...rendered });
  return id;
}

/**
 * Writes a message rendered by its module (a notification digest: a list, which the one-action templates do
 * not fit) to the outbox, as queueMail does.
 */
export async function queueRenderedMail(
  db: Db,
  to: string,
  template: string,
  rendered: RenderedMail,
  accountId?: string,
): Promise<string> {
  const id = newId('msg');
  await db.insert(mailMessages).values({ id, accountId, to, template, ...rendered });
  return id;
}

/** Hands queued messages to the mail job (retried on failure); without a queue they wait in the outbox. */
export async function dispatchMail(services: Services, ids: string[]) {
  if (!services.queue) return;
  for (const id of ids) await services.queue.send(MAIL_SEND_JOB, { id }, { singletonKey: id });
}

/** The job: send one outbox message through SMTP, or, with no SMTP configured, log its links (not in production). */
export async function deliverMail(services: Services, id: string) {
  const [message] = await services.db.select().from(mailMessages).where(eq(mailMessages.id, id));
  if (!message || message.status === 'sent' || message.status === 'stored') return;
  if (!services.config.SMTP_URL) {
    // The links (a reset code, say) are secrets: a production log keeps only that a message was held.
    const production = services.config.NODE_ENV === 'production';
    services.logger.info(
      { mailId: id, to: message.to, subject: message.subject, ...(production ? {} : { links: message.links }) },
      'mail stored in the outbox (no SMTP_URL)',
    );
    await services.db.update(mailMessages).set({ status: 'stored' }).where(eq(mailMessages.id, id));
    return;
  }
  try {
    await transport(services.config.SMTP_URL).sendMail({
      from: services.config.MAIL_FROM,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      messageId: `<${id}@switchyard>`,
    });
  } catch (err) {
    await services.db
      .update(mailMessages)
      .set({ error: err instanceof Error ? err.message.slice(0, 500) : 'send failed' })
      .where(eq(mailMessages.id, id));
    throw err;
  }
  await services.db
    .update(mailMessages)
    .set({ status: 'sent', sentAt: new Date(), error: null })
    .where(eq(mailMessages.id, id));
}

const transports = new Map<string, Transporter>();
function transport(url: string) {
  let t = transports.get(url);
  if (!t) {
    t = nodemailer.createTransport(url);
    transports.set(url, t);
  }
  return t;
}

/** The development mailbox: the newest outbox messages. */
export function listOutbox(db: Db, limit = 100) {
  return db
    .select({
      id: mailMessages.id,
      to: mailMessages.to,
      subject: mailMessages.subject,
      text: mailMessages.text,
      html: mailMessages.html,
      links: mailMessages.links,
      status: mailMessages.status,
      createdAt: mailMessages.createdAt,
    })
    .from(mailMessages)
    .orderBy(desc(mailMessages.createdAt), desc(mailMessages.id))
    .limit(limit);
}
