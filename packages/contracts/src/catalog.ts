import { z } from 'zod';
import { ChannelStatus, ChannelType, ProductSettings } from './channels.ts';

/**
 * Catalog import and publish (issue 6): a channel's catalog view, the import and publish actions and
 * the account's daily catalog sync.
 *
 * Calls:
 * - v1/v2 `POST channels/{id}/actions/catalog-sync` CatalogSyncInput → 202 CatalogSyncStarted: imports the
 *   channel's catalog (then publishes what it lacks when its product settings say publishMissing)
 * - v1/v2 `POST channels/{id}/actions/catalog-publish` → 202 CatalogSyncStarted: publishes our products the
 *   channel does not list yet
 * - frontend `POST catalogSync` CatalogSyncHourInput → CatalogSyncSchedule; `GET catalogSync` → the same
 * - frontend `GET catalogIntegrations` → { results: CatalogIntegration[], total }
 * - frontend `GET catalogIntegrations/{id}` → CatalogIntegration (id = the channel's id)
 * - frontend `PUT catalogIntegrations/{id}` CatalogIntegrationUpdate → CatalogIntegration
 */

/** An ISO date (2026-11-01) or date-time (2026-11-01T08:00:00Z): only products changed since then. */
export const SyncFrom = z
  .string()
  .trim()
  .refine((v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), {
    message: 'Should be an ISO date (2026-11-01) or date-time (2026-11-01T08:00:00Z)',
  });

export const CatalogSyncInput = z.object({ sync_from: SyncFrom.nullish() });
export type CatalogSyncInput = z.infer<typeof CatalogSyncInput>;

export const CatalogSyncStarted = z.object({ sync_id: z.number().int() });
export type CatalogSyncStarted = z.infer<typeof CatalogSyncStarted>;

/** SPEC §7 `POST catalogSync` (hour): the local hour of the daily import; null switches it off. */
export const CatalogSyncHourInput = z.object({
  hour: z.coerce
    .number({ message: 'Should be an hour from 0 to 23' })
    .int('Should be a whole hour')
    .min(0, 'Should be an hour from 0 to 23')
    .max(23, 'Should be an hour from 0 to 23')
    .nullable(),
});
export type CatalogSyncHourInput = z.input<typeof CatalogSyncHourInput>;

export const CatalogSyncSchedule = z.object({
  hour: z.number().int().min(0).max(23).nullable(),
  /** The account's IANA time zone: the hour is local to it. */
  timezone: z.string(),
  /** The next daily run, or null when off. */
  nextRunAt: z.date().nullable(),
});
export type CatalogSyncSchedule = z.infer<typeof CatalogSyncSchedule>;

/** A channel's catalog view (SPEC §3: users' columnsFilter is keyed by catalog_integration_id = this id). */
export const CatalogIntegration = z.object({
  id: z.string(),
  name: z.string(),
  type: ChannelType,
  status: ChannelStatus,
  /** The channel's catalog feature (import and publish) is on. */
  catalogEnabled: z.boolean(),
  listingCount: z.number().int(),
  /** When the last catalog import finished, and how. */
  lastImportAt: z.date().nullable(),
  lastImportStatus: z.string().nullable(),
  settings: z.object({ product: ProductSettings }),
});
export type CatalogIntegration = z.infer<typeof CatalogIntegration>;

export const CatalogIntegrationUpdate = z.object({
  settings: z.object({ product: ProductSettings.partial() }),
});
export type CatalogIntegrationUpdate = z.input<typeof CatalogIntegrationUpdate>;
