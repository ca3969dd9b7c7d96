import { GraphQLError } from 'graphql';

/**
 * Shopify's search syntax as the `query:` argument of connections takes it, for the fields the
 * simulator filters on: `updated_at:>'2025-01-01T00:00:00Z' sku:SY-00001-01 status:active title:Mug`.
 * Terms are ANDed; comparison operators `:>`, `:>=`, `:<`, `:<=`, `:` (equals, or prefix with `*`).
 */
export interface SearchTerm {
  field: string | null;
  op: '=' | '>' | '>=' | '<' | '<=';
  value: string;
  negate: boolean;
}

const TOKEN = /(-)?(?:([a-z_]+):(>=|<=|>|<)?)?(?:'([^']*)'|"([^"]*)"|([^\s]+))/gi;

export function parseSearch(query: string | null | undefined): SearchTerm[] {
  if (!query) return [];
  const terms: SearchTerm[] = [];
  for (const m of query.matchAll(TOKEN)) {
    const value = m[4] ?? m[5] ?? m[6] ?? '';
    if (!m[2] && /^(AND|OR)$/.test(value)) {
      if (value === 'OR') throw new GraphQLError('The simulator supports AND-ed search terms only.');
      continue;
    }
    terms.push({
      field: m[2]?.toLowerCase() ?? null,
      op: (m[3] as SearchTerm['op'] | undefined) ?? '=',
      value,
      negate: m[1] === '-',
    });
  }
  return terms;
}

type FieldValue = string | number | boolean | null | undefined | string[];

/** True when `get(field)` satisfies every term; an unknown field matches nothing, as Shopify ignores nothing. */
export function matches(terms: SearchTerm[], get: (field: string | null) => FieldValue): boolean {
  return terms.every((t) => {
    const result = test(t, get(t.field));
    return t.negate ? !result : result;
  });
}

function test(term: SearchTerm, actual: FieldValue): boolean {
  if (actual === undefined || actual === null) return false;
  if (Array.isArray(actual)) return actual.some((a) => test(term, a));
  if (typeof actual === 'boolean') return String(actual) === term.value.toLowerCase();
  if (typeof actual === 'number') {
    const n = Number(term.value);
    return compare(term.op, actual - n);
  }
  const date = Date.parse(actual);
  if (/^\d{4}-\d{2}-\d{2}/.test(actual) && !Number.isNaN(date)) {
    const other = Date.parse(term.value);
    if (Number.isNaN(other)) return false;
    return compare(term.op, date - other);
  }
  if (term.op === '=') {
    const a = actual.toLowerCase();
    const v = term.value.toLowerCase();
    return v.endsWith('*') ? a.startsWith(v.slice(0, -1)) : term.field === null ? a.includes(v) : a === v;
  }
  return compare(term.op, actual.localeCompare(term.value));
}

function compare(op: SearchTerm['op'], diff: number): boolean {
  switch (op) {
    case '>':
      return diff > 0;
    case '>=':
      return diff >= 0;
    case '<':
      return diff < 0;
    case '<=':
      return diff <= 0;
    default:
      return diff === 0;
  }
}
