// Catalog integrations (SPEC §7 frontend `catalogIntegrations`): a channel's catalog view — its product
// settings, how many of our variants it lists, and its last import. The id is the channel's id (SPEC §3:
// users' columnsFilter entries are keyed by catalog_integration_id).
import {
  type CatalogIntegration,
  type CatalogIntegrationUpdate,
  DEFAULT_FEATURES,
  type ProductSettings,
} from '@switchyard/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../../trpc/context.ts';
import { type ChannelRow, updateSettings } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { channelSettingsOf } from './catalog-import.ts';

const listingCount = sql<number>`(select count(*)::int from listings l where l.channel_id = "channels"."id")`;
const lastImport = sql<{ at: string | null; status: string | null } | null>`(
  select json_build_object('at', s.finished_at, 'status', s.status) from syncs s
  where s.channel_id = "channels"."id" and s.type = 'catalog_import'
  order by s.id desc limit 1)`;

function toIntegration(
  row: ChannelRow,
  count: number,
  last: { at: string | null; status: string | null } | null,
): CatalogIntegration {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    catalogEnabled: { ...DEFAULT_FEATURES, ...row.features }.catalog,
    listingCount: Number(count),
    lastImportAt: last?.at ? new Date(last.at) : null,
    lastImportStatus: last?.status ?? null,
    settings: { product: channelSettingsOf(row).product },
  };
}

const columns = { row: channels, count: listingCount, last: lastImport };

export async function listCatalogIntegrations(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
): Promise<{ results: CatalogIntegration[]; total: number }> {
  const rows = await db
    .select(columns)
    .from(channels)
    .where(eq(channels.accountId, actor.accountId))
    .orderBy(channels.createdAt, channels.id);
  const results = rows.map((r) => toIntegration(r.row, r.count, r.last));
  return { results, total: results.length };
}

export async function getCatalogIntegration(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  id: string,
): Promise<CatalogIntegration> {
  const [r] = await db
    .select(columns)
    .from(channels)
    .where(and(eq(channels.accountId, actor.accountId), eq(channels.id, id)));
  if (!r) throw new DomainError('NOT_FOUND', 'Catalog integration not found');
  return toIntegration(r.row, r.count, r.last);
}

/** Replaces the given fields of the channel's product settings (validated as the settings page does). */
export async function updateCatalogIntegration(
  db: Db,
  actor: Actor,
  id: string,
  input: CatalogIntegrationUpdate,
): Promise<CatalogIntegration> {
  const current = await getCatalogIntegration(db, actor, id);
  const patch = input.settings.product;
  const next: ProductSettings = {
    ...current.settings.product,
    ...patch,
    priceRule: { ...current.settings.product.priceRule, ...patch.priceRule },
    syncFields: { ...current.settings.product.syncFields, ...patch.syncFields },
  };
  await updateSettings(db, actor, id, 'product', next);
  return getCatalogIntegration(db, actor, id);
}
