import { z } from 'zod';
import { Buffer, BufferInput } from './inventory.ts';
import { wholeNumber } from './whole-number.ts';

/**
 * Dynamic buffers (issue 6): what the buffers calls take and answer beyond inventory.ts.
 * v1/v2 `GET buffers` BuffersSearch → BufferList; `GET buffers/{id}` → Buffer; `POST buffers` BufferInput →
 * Buffer; `PATCH buffers/{id}` BufferPatch → Buffer; `DELETE buffers/{id}` → { id }.
 * tRPC `buffers.list/get/create/update/delete` over the same service.
 */

/** Buffer ids are serial integers (PostgreSQL `integer`). */
export const BufferId = wholeNumber('Buffer ids are whole numbers', { min: 1, max: 2_147_483_647 });
export const BufferIdInput = z.object({ id: BufferId });
export type BufferIdInput = z.infer<typeof BufferIdInput>;

export const BufferList = z.object({ results: z.array(Buffer), total: z.number().int() });
export type BufferList = z.infer<typeof BufferList>;

/** tRPC `buffers.update`: the id and the fields to change. */
export const BufferUpdateInput = BufferInput.partial().extend({ id: BufferId });
export type BufferUpdateInput = z.input<typeof BufferUpdateInput>;

export const BufferDeleted = z.object({ id: z.number().int() });
export type BufferDeleted = z.infer<typeof BufferDeleted>;

/**
 * The buffer form: BufferInput's rules, but an empty quantity is "* Required" (a coerced blank would be 0)
 * and the selects say what is missing.
 */
export const BufferForm = BufferInput.extend({
  channel_id: z.string().trim().min(1, 'Choose a channel').max(64),
  location_external_id: z.string().trim().min(1, 'Choose a location').max(100),
  qty: z.preprocess(
    (v) => (v === '' || v === null || v === undefined ? undefined : typeof v === 'string' ? Number(v) : v),
    z
      .number({ error: (issue) => (issue.input === undefined ? '* Required' : 'Should be a whole number') })
      .int('Should be a whole number')
      .min(0, 'Should be 0 or more')
      .max(1_000_000, 'Should be at most 1,000,000'),
  ),
});
export type BufferForm = z.input<typeof BufferForm>;

/** tRPC `buffers.skus`: catalog SKUs containing `search`, for the form's suggestions. */
export const BufferSkuSearch = z.object({
  search: z.string().trim().max(200).default(''),
  limit: wholeNumber('limit must be a whole number from 1 to 50', { min: 1, max: 50 }).default(10),
});
export type BufferSkuSearch = z.input<typeof BufferSkuSearch>;
export const BufferSkuSuggestion = z.object({ sku: z.string(), title: z.string() });
export type BufferSkuSuggestion = z.infer<typeof BufferSkuSuggestion>;
