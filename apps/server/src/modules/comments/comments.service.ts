// Comments (SPEC §7 `comment/list`, `comment/add`): on orders today. Adding one also puts it on the order's
// timeline. Every read and write is scoped to the actor's account; another account's order is not found.
import {
  type Comment,
  CommentAddInput,
  type CommentList,
  CommentListInput,
  ORDER_MESSAGES,
} from '@switchyard/contracts';
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { actorName } from '../orders/orders.service.ts';
import { orders } from '../orders/orders.tables.ts';
import { writeTimeline } from '../orders/orders.timeline.ts';
import { comments } from './comments.tables.ts';

const toComment = (row: typeof comments.$inferSelect): Comment => ({
  id: row.id,
  entity_id: row.entityId,
  type: row.entityType as Comment['type'],
  text: row.text,
  author: row.author,
  created_at: row.createdAt,
});

export async function addComment(db: Db, actor: Actor, raw: unknown): Promise<Comment> {
  const input = CommentAddInput.parse(raw);
  const [order] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.id, input.entity_id), eq(orders.accountId, actor.accountId)));
  if (!order) throw new DomainError('NOT_FOUND', ORDER_MESSAGES.notFound);
  const author = await actorName(db, actor);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(comments)
      .values({
        id: newId('cmt'),
        accountId: actor.accountId,
        entityType: input.type,
        entityId: order.id,
        text: input.text,
        userId: actor.userId,
        author,
      })
      .returning();
    if (!row) throw new Error('comment not stored');
    const preview = input.text.length > 140 ? `${input.text.slice(0, 139)}…` : input.text;
    await writeTimeline(tx, actor.accountId, order.id, [
      { kind: 'comment', message: preview, actor: author, userId: actor.userId },
    ]);
    return toComment(row);
  });
}

export async function listComments(db: Db, actor: Actor, raw: unknown): Promise<CommentList> {
  const input = CommentListInput.parse(raw ?? {});
  const where: SQL[] = [eq(comments.accountId, actor.accountId)];
  if (input.entity_id) {
    // One order's comments: an order of another account (or none) is not found, not an empty list.
    const [order] = await db
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.id, input.entity_id), eq(orders.accountId, actor.accountId)));
    if (!order) throw new DomainError('NOT_FOUND', ORDER_MESSAGES.notFound);
    where.push(eq(comments.entityId, input.entity_id));
  }
  if (input.type) where.push(eq(comments.entityType, input.type));
  const term = input.search?.trim().toLowerCase();
  if (term) where.push(sql`lower(${comments.text}) like ${`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
  const order = input.order === 'ASC' ? asc : desc;
  const column = input.sort === 'created_at' ? comments.createdAt : comments.id;
  const [rows, [count]] = await Promise.all([
    db
      .select()
      .from(comments)
      .where(and(...where))
      .orderBy(order(column), order(comments.id))
      .limit(input.limit)
      .offset((input.page - 1) * input.limit),
    db
      .select({ total: sql<number>`count(*)::int` })
      .from(comments)
      .where(and(...where)),
  ]);
  return { results: rows.map(toComment), total: count?.total ?? 0, limit: input.limit, page: input.page };
}
