import type { LocationMapping, ProviderStore } from '@switchyard/contracts';

/**
 * The provider's locations as they are now, with what was saved for each: a location new at the provider
 * is listed unmapped (feeding the channel if it is active); one the provider no longer has is dropped.
 */
export function mergeLocations(saved: LocationMapping[], live: ProviderStore[]): LocationMapping[] {
  const known = new Map(saved.map((mapping) => [mapping.externalLocationId, mapping]));
  return live.map((location) => {
    const existing = known.get(location.id);
    return existing
      ? { ...existing, externalName: location.name }
      : { externalLocationId: location.id, externalName: location.name, storeId: null, feeds: location.active };
  });
}
