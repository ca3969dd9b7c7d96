import { z } from 'zod';
import { wholeNumber } from './whole-number.ts';

/** The secret of an API key starts with this, so a bearer token says which kind it is. */
export const API_KEY_PREFIX = 'sy_live_';

export const ApiKeyName = z.string().trim().min(1, '* Required').max(100);

/** An API key as listed: never its secret, only the first characters for recognising it. */
export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdBy: z.string(),
  /** ISO 8601 times, so the REST API and tRPC answer the same shape. */
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

export const CreateApiKeyInput = z.object({ name: ApiKeyName });
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;

/** Creating a key is the only time its secret is shown. */
export const CreatedApiKey = z.object({ key: ApiKey, secret: z.string() });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const UpdateApiKeyInput = z.object({ id: z.string().min(1).max(100), name: ApiKeyName });
export type UpdateApiKeyInput = z.infer<typeof UpdateApiKeyInput>;

export const IdInput = z.object({ id: z.string().min(1).max(100) });
export type IdInput = z.infer<typeof IdInput>;

export const PageInput = z.object({
  limit: wholeNumber('limit must be a whole number from 1 to 200', { min: 1, max: 200 }).default(25),
  offset: wholeNumber('offset must be a whole number, 0 or more', { min: 0 }).default(0),
});
export type PageInput = z.infer<typeof PageInput>;

export const ApiKeyList = z.object({
  results: z.array(ApiKey),
  total: z.number().int(),
  limit: z.number(),
  offset: z.number(),
});
export type ApiKeyList = z.infer<typeof ApiKeyList>;
