/** The rows of a raw `db.execute(sql…)`, on node-postgres and on PGlite alike. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}
