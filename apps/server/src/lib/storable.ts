// What PostgreSQL cannot hold is refused where input is parsed (issue 18): the REST scopes' preValidation
// hook (rest/api.ts) and the base tRPC middleware (trpc/init.ts) both call `assertStorable` on the raw input,
// so a new route or procedure is covered without anyone listing it. Ranges and lengths of single fields
// belong to the contracts' schemas; this catches what no schema thinks of: U+0000 (text, varchar and jsonb
// all refuse it) and lone UTF-16 surrogates (jsonb refuses their escapes), at any depth, in keys too.
import { DomainError } from './errors.ts';

/** Beyond this depth the input is refused outright: no schema of ours nests anywhere near it. */
const MAX_DEPTH = 64;

export interface Unstorable {
  /** Dotted path of the field, e.g. `address.line1` or `items.0.sku` (empty for the input itself). */
  path: string;
  problem: string;
}

/** The first value in `input` that PostgreSQL could not store, or undefined. Iterative: deep input cannot overflow the stack. */
export function findUnstorable(input: unknown): Unstorable | undefined {
  const stack: { value: unknown; path: string[] }[] = [{ value: input, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string[] };
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { path: path.join('.'), problem };
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path: path.join('.'), problem: 'must be a finite number' };
      continue;
    }
    if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || value instanceof Date) continue;
    if (path.length >= MAX_DEPTH) return { path: path.join('.'), problem: 'is nested too deeply' };
    for (const [key, child] of Object.entries(value)) {
      const keyProblem = textProblem(key);
      if (keyProblem) return { path: [...path, printable(key)].join('.'), problem: `has a key that ${keyProblem}` };
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}

/**
 * Throws VALIDATION (400) naming the field, in the words of the schema errors of the same place
 * (`Invalid body: name: …`), when `input` holds something PostgreSQL cannot store.
 */
export function assertStorable(input: unknown, where: string): void {
  const found = findUnstorable(input);
  if (!found) return;
  const path = found.path.length > 200 ? `${found.path.slice(0, 200)}…` : found.path;
  const field = path ? `${path}: ` : '';
  throw new DomainError('VALIDATION', `Invalid ${where}: ${field}${found.problem}`);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the character U+0000';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it holds a lone surrogate)';
  return undefined;
}

/** A key quoted in the message must not carry the very characters it is refused for, nor run on for pages. */
function printable(key: string): string {
  const shown = key.replaceAll('\u0000', '\\u0000').replace(new RegExp(LONE_SURROGATE, 'g'), '\uFFFD');
  return shown.length > 100 ? `${shown.slice(0, 100)}…` : shown;
}

/**
 * A copy of `value` PostgreSQL can store: U+0000 and lone surrogates become U+FFFD, input nested beyond
 * MAX_DEPTH is cut off. For what must be kept even when malformed (a provider's webhook, marked failed).
 */
export function storableCopy(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested too deeply]';
  if (Array.isArray(value)) return value.map((item) => storableCopy(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [cleanText(key), storableCopy(child, depth + 1)]),
  );
}

function cleanText(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD').replace(new RegExp(LONE_SURROGATE, 'g'), '\uFFFD');
}
