import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';

/** The rows of a raw `db.execute(sql…)`, on node-postgres and on PGlite alike. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}

/**
 * `column in (values…)` as one jsonb parameter, whatever the list's length. drizzle's inArray writes a
 * placeholder a value, so each length is another statement text: parsed and planned afresh every time, and
 * never prepared (db/prepared.ts names a text only once it repeats). This one's text is the same for any list.
 * It is `= any(array(…))`, not `in (select …)`: the array is an index condition (each value looked up), where
 * the semi-join of `in (select …)`, planned for an unknown number of values, read every row of the account
 * (3,200 orders to find 10, measured).
 */
export const inList = (column: SQLWrapper, values: readonly string[]): SQL =>
  sql`${column} = any(array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)))`;
