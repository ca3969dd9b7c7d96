// The catalog: objects written with their version (the seed's), an ITEM rendered with its variations, and
// BatchUpsertCatalogObjects' all-or-nothing batch with `#temp` ids.

import { squareId } from './ids.ts';
import { type CatalogObject, invalid, type Json, SquareError } from './model.ts';
import type { Merchant } from './state.ts';

export function putObject(
  m: Merchant,
  object: Omit<CatalogObject, 'updated_at' | 'created_at' | 'version' | 'is_deleted' | 'present_at_all_locations'>,
) {
  const version = m.tick();
  const at = new Date(version).toISOString();
  m.objects.set(object.id, {
    ...object,
    updated_at: at,
    created_at: at,
    version,
    is_deleted: false,
    present_at_all_locations: true,
  });
  m.order.push(object.id);
}

/** An ITEM as Square returns it: with its live variations inline. */
export function render(m: Merchant, object: CatalogObject): CatalogObject {
  if (object.type !== 'ITEM') return structuredClone(object);
  const variations = [...m.objects.values()]
    .filter((o) => o.type === 'ITEM_VARIATION' && !o.is_deleted && o.item_variation_data?.item_id === object.id)
    .sort((a, b) => Number(a.item_variation_data?.ordinal ?? 0) - Number(b.item_variation_data?.ordinal ?? 0));
  return structuredClone({ ...object, item_data: { ...object.item_data, variations } });
}

/**
 * Upserts objects as one atomic batch: `#temp` ids become real ids (reported in id_mappings), an update
 * must carry the object's current version, and an ITEM's inline variations are upserted with it.
 */
export function upsertBatch(
  m: Merchant,
  input: Json[],
): {
  objects: CatalogObject[];
  idMappings: { client_object_id: string; object_id: string }[];
} {
  const mappings = new Map<string, string>();
  const pending: Json[] = [];
  const flatten = (raw: Json, itemId?: string) => {
    if (raw.type === 'ITEM') {
      const data = (raw.item_data ?? {}) as Json;
      const variations = Array.isArray(data.variations) ? (data.variations as Json[]) : [];
      pending.push({ ...raw, item_data: { ...data, variations: undefined } });
      for (const v of variations) flatten(v, raw.id as string);
    } else if (raw.type === 'ITEM_VARIATION') {
      const data = (raw.item_variation_data ?? {}) as Json;
      pending.push({ ...raw, item_variation_data: { ...data, item_id: data.item_id ?? itemId } });
    } else if (raw.type === 'CATEGORY') {
      pending.push(raw);
    } else {
      throw invalid('INVALID_VALUE', `Object type ${String(raw.type)} is not supported.`, 'type');
    }
  };
  for (const raw of input) flatten(raw);
  // Validate everything first: a batch is all or nothing.
  for (const raw of pending) {
    const id = raw.id;
    if (typeof id !== 'string' || id === '')
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Object id is required.', 'id');
    if (id.startsWith('#')) {
      if (!mappings.has(id)) mappings.set(id, squareId.catalog(m.rng));
      continue;
    }
    const current = m.objects.get(id);
    if (!current || current.is_deleted)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Object \`${id}\` not found.`, 'id');
    if (current.type !== raw.type) throw invalid('INVALID_VALUE', `Object \`${id}\` is a ${current.type}.`, 'type');
    if (raw.version === undefined || Number(raw.version) !== current.version) {
      throw invalid(
        'VERSION_MISMATCH',
        `Object version does not match for object \`${id}\`: the current version is ${current.version}.`,
        'version',
      );
    }
  }
  const resolve = (id: unknown) => (typeof id === 'string' && id.startsWith('#') ? (mappings.get(id) ?? id) : id);
  for (const raw of pending) {
    if (raw.type === 'ITEM_VARIATION') {
      const data = raw.item_variation_data as Json;
      const itemId = resolve(data.item_id);
      const item = typeof itemId === 'string' ? m.objects.get(itemId) : undefined;
      const inBatch = pending.some((p) => p.type === 'ITEM' && resolve(p.id) === itemId);
      if (!inBatch && (item?.type !== 'ITEM' || item.is_deleted)) {
        throw invalid(
          'INVALID_VALUE',
          'Item variation must reference an existing item.',
          'item_variation_data.item_id',
        );
      }
    }
  }
  const written: CatalogObject[] = [];
  for (const raw of pending) {
    const id = resolve(raw.id) as string;
    const existing = m.objects.get(id);
    const version = m.tick();
    const at = new Date(version).toISOString();
    const { type } = raw as { type: CatalogObject['type'] };
    const next: CatalogObject = {
      type,
      id,
      created_at: existing?.created_at ?? at,
      updated_at: at,
      version,
      is_deleted: false,
      present_at_all_locations: raw.present_at_all_locations !== false,
    };
    if (type === 'ITEM') {
      const { variations: _ignored, ...data } = (raw.item_data ?? {}) as Json;
      next.item_data = { ...existing?.item_data, ...data };
    } else if (type === 'ITEM_VARIATION') {
      const data = raw.item_variation_data as Json;
      next.item_variation_data = { ...existing?.item_variation_data, ...data, item_id: resolve(data.item_id) };
    } else {
      next.category_data = { ...existing?.category_data, ...(raw.category_data as Json) };
    }
    m.objects.set(id, next);
    if (!existing) m.order.push(id);
    written.push(next);
  }
  m.emit({ type: 'catalog.version.updated', updatedAt: new Date(m.clock).toISOString() });
  return {
    objects: written.filter((o) => input.some((raw) => resolve(raw.id) === o.id)).map((o) => m.render(o)),
    idMappings: [...mappings].map(([client_object_id, object_id]) => ({ client_object_id, object_id })),
  };
}
