import { ChannelType } from '@switchyard/contracts';
import { notFound } from '@tanstack/react-router';
import { z } from 'zod';

/**
 * Any search keys, as the strings the provider or the link sent. The router reads values that look like
 * JSON as such (`?hash=123` arrives as a number), so each is turned back into its text.
 */
export const AnySearch = z.record(z.string(), z.unknown());

export function searchStrings(search: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(search)) {
    if (value === undefined || value === null) continue;
    out[key] = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return out;
}

/** The `{service}` segment: one of the providers, or the page is not found. */
export function parseService(service: string): ChannelType {
  const parsed = ChannelType.safeParse(service);
  if (!parsed.success) throw notFound();
  return parsed.data;
}

/** SPEC §2: the shop is the part of the shop-or-hash value before its first dot. */
export function oauthProperties(search: Record<string, unknown>): Record<string, string> {
  const properties = searchStrings(search);
  const shopOrHash = properties.shop || properties.hash;
  if (shopOrHash) properties.shop = shopOrHash.split('.')[0] ?? shopOrHash;
  return properties;
}
