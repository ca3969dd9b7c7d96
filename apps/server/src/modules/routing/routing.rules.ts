// The merchant's routing rules, versioned: every change is a new version (who, when, a note); the live set is
// the highest version; none saved means the built-in default rule (version 0). A save names the version it
// started from, so two people editing at once cannot silently undo each other.
import {
  DEFAULT_ROUTING_RULE,
  ReorderRoutingRulesInput,
  ROUTING_MESSAGES,
  type RoutingRule,
  type RoutingRuleSet,
  RoutingRules,
  type RoutingVersionList,
  RoutingVersionsInput,
  RuleSetRef,
  SaveRoutingRulesInput,
} from '@switchyard/contracts';
import { and, count, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { ownChannelIds } from '../channels/channels.read.ts';
import { locationsByIds } from '../locations/locations.read.ts';
import { actorName } from '../orders/orders.service.ts';
import { routingRuleSets } from './routing.tables.ts';

export const BUILT_IN_RULE_SET: RoutingRuleSet = {
  version: 0,
  rules: [DEFAULT_ROUTING_RULE],
  note: 'Built-in default: every location by priority, each line from one location.',
  createdBy: null,
  createdAt: null,
};

type Row = typeof routingRuleSets.$inferSelect;
// Saved versions never change: their parsed rules are kept (by row id) so routing does not parse them per order.
const parsed = new Map<string, RoutingRule[]>();
function rulesOf(row: Row): RoutingRule[] {
  const hit = parsed.get(row.id);
  if (hit) return hit;
  const rules = RoutingRules.parse(row.rules);
  if (parsed.size > 1000) parsed.clear();
  parsed.set(row.id, rules);
  return rules;
}

const toSet = (row: Row): RoutingRuleSet => ({
  version: row.version,
  rules: rulesOf(row),
  note: row.note,
  createdBy: row.createdBy,
  createdAt: row.createdAt,
});

/** The live rule set (the highest version), or the built-in default. */
export async function liveRuleSet(db: Db | Tx, accountId: string): Promise<RoutingRuleSet> {
  const [row] = await db
    .select()
    .from(routingRuleSets)
    .where(eq(routingRuleSets.accountId, accountId))
    .orderBy(desc(routingRuleSets.version))
    .limit(1);
  return row ? toSet(row) : BUILT_IN_RULE_SET;
}

export async function ruleSetVersion(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  version: number,
): Promise<RoutingRuleSet> {
  if (version === 0) return BUILT_IN_RULE_SET;
  const [row] = await db
    .select()
    .from(routingRuleSets)
    .where(and(eq(routingRuleSets.accountId, actor.accountId), eq(routingRuleSets.version, version)));
  if (!row) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.versionNotFound);
  return toSet(row);
}

export async function listVersions(db: Db, actor: Pick<Actor, 'accountId'>, raw: unknown): Promise<RoutingVersionList> {
  const input = RoutingVersionsInput.parse(raw ?? {});
  const where = eq(routingRuleSets.accountId, actor.accountId);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(routingRuleSets)
      .where(where)
      .orderBy(desc(routingRuleSets.version))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ n: count() }).from(routingRuleSets).where(where),
  ]);
  const live = rows[0]?.version ?? 0;
  return {
    results: rows.map((r) => ({
      version: r.version,
      ruleCount: Array.isArray(r.rules) ? r.rules.length : 0,
      note: r.note,
      createdBy: r.createdBy,
      createdAt: r.createdAt,
      live: input.offset === 0 && r.version === live,
    })),
    total: total?.n ?? 0,
  };
}

/** Checks a set's rules (shape, one default last) and that every location they name is the account's. */
export async function checkRules(db: Db | Tx, accountId: string, raw: unknown): Promise<RoutingRule[]> {
  const parsed = RoutingRules.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `rules.${issue.path.join('.')}: ` : '';
    throw new DomainError('VALIDATION', `${where}${issue?.message ?? 'Invalid rules'}`);
  }
  const named = new Set<string>();
  for (const r of parsed.data)
    for (const id of [...r.strategy.locationIds, ...r.strategy.excludeLocationIds]) named.add(id);
  if (named.size) {
    const found = await locationsByIds(db, accountId, [...named]);
    const ours = new Set(found.map((f) => f.id));
    const missing = [...named].find((id) => !ours.has(id));
    if (missing) throw new DomainError('VALIDATION', ROUTING_MESSAGES.unknownLocation(missing));
  }
  // A channel condition names channels of the account: another account's id (or a made-up one) would be kept
  // as a rule that can never match.
  const channelIds = [...new Set(parsed.data.flatMap((r) => r.conditions.channelIds))];
  if (channelIds.length) {
    const ours = await ownChannelIds(db, accountId, channelIds);
    const missing = channelIds.find((id) => !ours.has(id));
    if (missing) throw new DomainError('VALIDATION', ROUTING_MESSAGES.unknownChannel(missing));
  }
  return parsed.data;
}

/** Saves the rules as a new version. Refused when the live version is no longer `baseVersion`. */
export async function saveRules(db: Db, actor: Actor, raw: unknown): Promise<RoutingRuleSet> {
  const input = SaveRoutingRulesInput.parse(raw);
  const withIds = input.rules.map((r) => ({ ...r, id: r.id?.trim() ? r.id : newId('rule') }));
  return writeVersion(db, actor, input.baseVersion, withIds, input.note ?? null);
}

/** Reorders the rules (the default stays last) as a new version. */
export async function reorderRules(db: Db, actor: Actor, raw: unknown): Promise<RoutingRuleSet> {
  const input = ReorderRoutingRulesInput.parse(raw);
  const live = await liveRuleSet(db, actor.accountId);
  if (live.version !== input.baseVersion)
    throw new DomainError('CONFLICT', ROUTING_MESSAGES.staleVersion(live.version));
  const byId = new Map(live.rules.map((r) => [r.id, r]));
  const ordered = input.order.map((id) => byId.get(id));
  if (
    ordered.length !== live.rules.length ||
    new Set(input.order).size !== input.order.length ||
    ordered.some((r) => !r)
  )
    throw new DomainError('VALIDATION', ROUTING_MESSAGES.reorderMismatch);
  if (!ordered[ordered.length - 1]?.isDefault) throw new DomainError('VALIDATION', ROUTING_MESSAGES.reorderMismatch);
  return writeVersion(db, actor, input.baseVersion, ordered as RoutingRule[], 'Reordered');
}

async function writeVersion(
  db: Db,
  actor: Actor,
  baseVersion: number,
  raw: unknown,
  note: string | null,
): Promise<RoutingRuleSet> {
  const who = await actorName(db, actor);
  try {
    return await db.transaction(async (tx) => {
      const rules = await checkRules(tx, actor.accountId, raw);
      const live = await liveRuleSet(tx, actor.accountId);
      if (live.version !== baseVersion) throw new DomainError('CONFLICT', ROUTING_MESSAGES.staleVersion(live.version));
      // The unique (account, version) index refuses a concurrent save of the same next version.
      const [row] = await tx
        .insert(routingRuleSets)
        .values({
          id: newId('rrs'),
          accountId: actor.accountId,
          version: live.version + 1,
          rules,
          note,
          createdByUserId: actor.userId,
          createdBy: who,
        })
        .returning();
      if (!row) throw new Error('insert returned no row');
      return toSet(row);
    });
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const mapped = fromDatabaseError(err);
    if (mapped?.code === 'CONFLICT') {
      const live = await liveRuleSet(db, actor.accountId);
      throw new DomainError('CONFLICT', ROUTING_MESSAGES.staleVersion(live.version));
    }
    throw mapped ?? err;
  }
}

/** The rules a dry run or replay uses: live, a saved version, or a draft (checked like a save). */
export async function resolveRuleSet(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  raw: z.input<typeof RuleSetRef>,
): Promise<{ version: number | null; rules: RoutingRule[] }> {
  const ref = RuleSetRef.parse(raw);
  if (ref.source === 'live') {
    const live = await liveRuleSet(db, actor.accountId);
    return { version: live.version, rules: live.rules };
  }
  if (ref.source === 'version') {
    const set = await ruleSetVersion(db, actor, ref.version);
    return { version: set.version, rules: set.rules };
  }
  const withIds = ref.rules.map((r, i) => ({ ...r, id: r.id?.trim() ? r.id : `draft-${i + 1}` }));
  return { version: null, rules: await checkRules(db, actor.accountId, withIds) };
}
