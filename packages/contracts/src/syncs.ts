import { z } from 'zod';
import { PageInput } from './apps.ts';
import { ChannelType } from './channels.ts';
import { SyncStatus, SyncsSearch, SyncTrigger, SyncType } from './inventory.ts';
import { wholeNumber } from './whole-number.ts';

/**
 * Sync records, the reading side (issue 6). Runs are written by the sync jobs (server
 * modules/syncs/syncs.records.ts); these are the shapes the /syncs/ screens and the REST calls read.
 *
 * Calls (tRPC unless a REST path is given):
 * - `syncs.list(SyncsListInput)` → SyncList (sent unbatched by the web app, SPEC §7)
 * - `syncs.count(SyncsListInput)` → { total }
 * - `syncs.get(SyncGetInput)` → SyncDetail (the run, its channel, its failed items paged)
 * - `syncs.types` → SyncTypesOutput (every type with its label and the account's number of runs)
 * - `syncs.retry({ id })` → { id } (the new run that retries the failed items)
 * - `syncs.deadLetters(PageInput)` → DeadLetterList (sync jobs that used up their retries)
 * - frontend `GET syncs` (SyncsListInput as query) → { results: SyncRun[], total }
 * - frontend `GET syncs/{id}` (items_limit, items_offset) → SyncDetail
 */

/** The list's filters: the SPEC's search params, and for API callers a channel. */
export const SyncsListInput = SyncsSearch.extend({
  channel_id: z.string().trim().min(1).max(64).optional(),
});
export type SyncsListInput = z.input<typeof SyncsListInput>;

export const SyncChannelRef = z.object({ id: z.string(), name: z.string(), type: ChannelType });
export type SyncChannelRef = z.infer<typeof SyncChannelRef>;

export const SyncRun = z.object({
  id: z.number().int(),
  type: SyncType,
  typeLabel: z.string(),
  /** null: an account-wide run, or its channel was removed. */
  channel: SyncChannelRef.nullable(),
  status: SyncStatus,
  trigger: SyncTrigger,
  /** Items to handle (0 while unknown), handled so far, and of those succeeded and failed. */
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  message: z.string().nullable(),
  /** The run whose failed items this one retries. */
  retryOf: z.number().int().nullable(),
  createdAt: z.date(),
  startedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  /** Finished runs: finished − started; running ones: so far. */
  durationMs: z.number().int().nullable(),
});
export type SyncRun = z.infer<typeof SyncRun>;

export const SyncList = z.object({ results: z.array(SyncRun), total: z.number().int() });
export type SyncList = z.infer<typeof SyncList>;

export const SYNC_ITEM_STATUSES = ['failed', 'retried', 'succeeded'] as const;
export const SyncItemStatus = z.enum(SYNC_ITEM_STATUSES);
export type SyncItemStatus = z.infer<typeof SyncItemStatus>;

export const SyncItem = z.object({
  id: z.number().int(),
  /** A SKU, "SKU @ store", a product title. */
  label: z.string(),
  variantId: z.string().nullable(),
  status: SyncItemStatus,
  error: z.string(),
  createdAt: z.date(),
});
export type SyncItem = z.infer<typeof SyncItem>;

/** Sync runs are numbered from 1. */
const SyncId = wholeNumber('Sync ids are whole numbers', { min: 1 });

export const SyncGetInput = z.object({
  id: SyncId,
  items_limit: z.coerce.number().int().min(1).max(200).catch(25).default(25),
  items_offset: z.coerce.number().int().min(0).catch(0).default(0),
});
export type SyncGetInput = z.input<typeof SyncGetInput>;

export const SyncDetail = z.object({
  sync: SyncRun,
  items: z.object({
    results: z.array(SyncItem),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  /** Failed items not yet retried: what "Retry failed items" would retry. */
  retryable: z.number().int(),
  /** Runs that retried this one, newest first. */
  retries: z.array(z.object({ id: z.number().int(), status: SyncStatus, createdAt: z.date() })),
});
export type SyncDetail = z.infer<typeof SyncDetail>;

export const SyncIdInput = z.object({ id: SyncId });
export type SyncIdInput = z.infer<typeof SyncIdInput>;

export const SyncTypesOutput = z.object({
  types: z.array(z.object({ type: SyncType, label: z.string(), count: z.number().int() })),
  total: z.number().int(),
});
export type SyncTypesOutput = z.infer<typeof SyncTypesOutput>;

/** A sync job that failed every retry and sits in its dead-letter queue (`<queue>.dead`). */
export const DeadLetter = z.object({
  id: z.string(),
  /** The queue the job ran in, e.g. `inventory.push`. */
  queue: z.string(),
  channel: SyncChannelRef.nullable(),
  /** The job's last error, as the worker reported it. */
  error: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.date(),
});
export type DeadLetter = z.infer<typeof DeadLetter>;

export const DeadLetterList = z.object({ results: z.array(DeadLetter), total: z.number().int() });
export type DeadLetterList = z.infer<typeof DeadLetterList>;
export const DeadLettersInput = PageInput;

export const SYNC_MESSAGES = {
  notFound: 'Sync not found',
  stillRunning: 'This sync is still running. Retry its failed items once it has finished.',
  nothingToRetry: 'This sync has no failed items left to retry.',
  noChannel: 'This sync has no channel left to retry against.',
} as const;
