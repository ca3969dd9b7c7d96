// The account's audit log: superusers acting in it and super admins' changes, readable by the account.
import type { AuditEntry, AuditList, PageInput } from '@switchyard/contracts';
import { and, count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { users } from '../accounts/accounts.tables.ts';
import { auditEntries } from './audit.tables.ts';

export interface AuditRecord {
  accountId: string;
  actorUserId: string;
  action: string;
  detail?: Record<string, unknown>;
}

/** Pass the transaction of the change, so the entry and the change commit together. */
export async function recordAudit(db: Db, record: AuditRecord): Promise<string> {
  const id = newId('aud');
  await db.insert(auditEntries).values({ id, ...record, detail: record.detail ?? {} });
  return id;
}

const select = {
  entry: auditEntries,
  actor: { id: users.id, email: users.email, firstname: users.firstname, lastname: users.lastname },
};
type Row = { entry: typeof auditEntries.$inferSelect; actor: AuditEntry['actor'] };
const toEntry = ({ entry, actor }: Row): AuditEntry => ({
  id: entry.id,
  action: entry.action,
  actor,
  detail: entry.detail,
  createdAt: entry.createdAt.toISOString(),
});

export async function listAudit(db: Db, actor: Actor, page: PageInput): Promise<AuditList> {
  const own = eq(auditEntries.accountId, actor.accountId);
  const [rows, [total]] = await Promise.all([
    db
      .select(select)
      .from(auditEntries)
      .innerJoin(users, eq(users.id, auditEntries.actorUserId))
      .where(own)
      .orderBy(desc(auditEntries.createdAt), desc(auditEntries.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(auditEntries).where(own),
  ]);
  return { results: rows.map(toEntry), total: total?.n ?? 0, limit: page.limit, offset: page.offset };
}

export async function getAuditEntry(db: Db, actor: Actor, id: string): Promise<AuditEntry> {
  const [row] = await db
    .select(select)
    .from(auditEntries)
    .innerJoin(users, eq(users.id, auditEntries.actorUserId))
    .where(and(eq(auditEntries.accountId, actor.accountId), eq(auditEntries.id, id)));
  if (!row) throw new DomainError('NOT_FOUND', 'Audit entry not found');
  return toEntry(row);
}
