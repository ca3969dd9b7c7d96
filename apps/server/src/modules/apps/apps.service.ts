// App management: the merchant's API keys for the public REST API, and turning a key into an Actor.
import { createHash, randomBytes } from 'node:crypto';
import {
  API_KEY_PREFIX,
  type ApiKey,
  type ApiKeyList,
  type CreateApiKeyInput,
  type CreatedApiKey,
  type PageInput,
  type UpdateApiKeyInput,
} from '@switchyard/contracts';
import { and, count, desc, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { users } from '../accounts/accounts.tables.ts';
import { apiKeys } from './apps.tables.ts';

/** Characters of the secret after `sy_live_` that stay visible in lists. */
const SHOWN_CHARS = 4;
/** last_used_at is written at most this often per key, so using a key is not a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const NOT_FOUND = 'API key not found';

type ApiKeyRow = typeof apiKeys.$inferSelect;

const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  createdBy: row.createdBy,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});

export const hashApiKey = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** The prefix an actor made from an API key has as its session id. */
const KEY_SESSION = 'key:';
export const isApiKeyActor = (actor: Actor) => actor.sessionId.startsWith(KEY_SESSION);

/** Managing keys needs a person signed in: a key can neither see nor mint nor revoke keys. */
function requireSession(actor: Actor) {
  if (isApiKeyActor(actor)) throw new DomainError('FORBIDDEN', 'Sign in to manage API keys.');
}

export async function createApiKey(db: Db, actor: Actor, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  requireSession(actor);
  const secret = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId('key'),
      accountId: actor.accountId,
      name: input.name,
      prefix: secret.slice(0, API_KEY_PREFIX.length + SHOWN_CHARS),
      keyHash: hashApiKey(secret),
      createdBy: actor.userId,
    })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return { key: toApiKey(row), secret };
}

const live = (actor: Actor) => and(eq(apiKeys.accountId, actor.accountId), isNull(apiKeys.revokedAt));

export async function listApiKeys(db: Db, actor: Actor, page: PageInput): Promise<ApiKeyList> {
  requireSession(actor);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(apiKeys)
      .where(live(actor))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(apiKeys).where(live(actor)),
  ]);
  return { results: rows.map(toApiKey), total: total?.n ?? 0, limit: page.limit, offset: page.offset };
}

export async function getApiKey(db: Db, actor: Actor, id: string): Promise<ApiKey> {
  requireSession(actor);
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(live(actor), eq(apiKeys.id, id)));
  if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return toApiKey(row);
}

export async function renameApiKey(db: Db, actor: Actor, input: UpdateApiKeyInput): Promise<ApiKey> {
  requireSession(actor);
  const [row] = await db
    .update(apiKeys)
    .set({ name: input.name })
    .where(and(live(actor), eq(apiKeys.id, input.id)))
    .returning();
  if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return toApiKey(row);
}

/** Revoking is final: the key stops working at once and leaves the list. */
export async function revokeApiKey(db: Db, actor: Actor, id: string): Promise<{ id: string; revoked: true }> {
  requireSession(actor);
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(live(actor), eq(apiKeys.id, id)))
    .returning({ id: apiKeys.id });
  if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return { id: row.id, revoked: true };
}

/**
 * The caller behind an API key (`Authorization: Bearer sy_live_…`): acts in the key's account as the
 * user who created it, with ordinary user rights. A revoked key, or one whose creator has left the
 * account, authenticates nobody.
 */
export async function resolveApiKey(db: Db, secret: string, now = new Date()): Promise<Actor | undefined> {
  const [row] = await db
    .select({ key: apiKeys, user: { id: users.id } })
    .from(apiKeys)
    .innerJoin(users, and(eq(users.id, apiKeys.createdBy), eq(users.accountId, apiKeys.accountId)))
    .where(and(eq(apiKeys.keyHash, hashApiKey(secret)), isNull(apiKeys.revokedAt)));
  if (!row) return undefined;
  const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (!row.key.lastUsedAt || row.key.lastUsedAt < stale) {
    // The condition repeats in SQL so that concurrent requests write once between them.
    await db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(apiKeys.id, row.key.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
  }
  return {
    sessionId: `${KEY_SESSION}${row.key.id}`,
    userId: row.user.id,
    accountId: row.key.accountId,
    authorizationLevel: 'user',
    superUserRole: null,
  };
}
