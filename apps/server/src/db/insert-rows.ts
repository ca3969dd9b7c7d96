// Many rows inserted with one parameter: the rows as JSON, read back by `jsonb_to_recordset` with each column's
// type. drizzle's `insert().values(rows)` makes a parameter of every value and builds the statement by walking
// each one (about 6 µs a value here: 3.5 ms for 20 orders), which was a third of the server's time under a stream
// of orders (bench/README.md). The rows go in the order given, and the statement is the same on PGlite and
// PostgreSQL. Values are encoded as drizzle encodes them; a column a row leaves out takes its default as drizzle
// would give it: a `$defaultFn` or a literal default is filled in here, a column no row names is left to the
// database, and one some rows name and others leave out with only a database default is refused.
import { type AnyColumn, getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

type Row<T extends PgTable> = T['$inferInsert'];

export interface InsertRowsOptions<R extends Record<string, AnyColumn>> {
  /** `on conflict do nothing`: a row that meets a unique index is left out (and not returned). */
  onConflictDoNothing?: boolean;
  /** Any other `on conflict …` clause (an upsert: `excluded` is the row given). */
  onConflict?: SQL;
  /** The columns of the inserted rows to answer, by the names the caller wants them under. */
  returning?: R;
}

/** The insert statement (for a caller that puts it in a larger one, `with written as (…)`). */
export function insertRowsSql<T extends PgTable>(
  table: T,
  rows: Row<T>[],
  options: InsertRowsOptions<Record<string, AnyColumn>> = {},
): SQL {
  const columns = columnsOf(table);
  const present = new Set<string>();
  for (const row of rows)
    for (const [key, value] of Object.entries(row as Record<string, unknown>))
      if (value !== undefined) present.add(key);
  const used = columns.filter((c) => present.has(c.key) || filledHere(c.column));
  const records = rows.map((row, ord) => {
    const out: Record<string, unknown> = { ord };
    for (const { key, column, name, raw } of used) {
      let value = (row as Record<string, unknown>)[key];
      if (value === undefined) value = defaultOf(table, key, column);
      out[name] = value === null || value === undefined ? null : raw ? value : column.mapToDriverValue(value);
    }
    return out;
  });
  const names = sql.raw(used.map((c) => `"${c.name}"`).join(', '));
  const types = sql.raw([...used.map((c) => `"${c.name}" ${c.type}`), 'ord int'].join(', '));
  const conflict = options.onConflictDoNothing
    ? sql` on conflict do nothing`
    : options.onConflict
      ? sql` ${options.onConflict}`
      : sql``;
  const returning = options.returning
    ? sql` returning ${sql.join(
        Object.entries(options.returning).map(
          ([as, c]) => sql`${sql.identifier(nameOf(c as PgColumn))} as ${sql.identifier(as)}`,
        ),
        sql`, `,
      )}`
    : sql``;
  return sql`insert into ${table} (${names}) select ${names} from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as v(${types}) order by v.ord${conflict}${returning}`;
}

/**
 * Inserts the rows in one statement (see the top of this file); answers the `returning` columns of the rows
 * inserted. Rows are sent 1,000 to a statement.
 */
export async function insertRows<T extends PgTable, R extends Record<string, AnyColumn> = Record<string, never>>(
  db: { execute: (query: SQL) => Promise<unknown> },
  table: T,
  rows: Row<T>[],
  options: InsertRowsOptions<R> = {},
): Promise<{ [K in keyof R]: R[K]['_']['data'] }[]> {
  const out: { [K in keyof R]: R[K]['_']['data'] }[] = [];
  for (let i = 0; i < rows.length; i += 1000) {
    const result = await db.execute(insertRowsSql(table, rows.slice(i, i + 1000), options));
    if (!options.returning) continue;
    const returned = ((result as { rows?: Record<string, unknown>[] }).rows ?? result) as Record<string, unknown>[];
    const decoders = Object.entries(options.returning);
    for (const r of returned) {
      const row: Record<string, unknown> = {};
      for (const [as, c] of decoders) row[as] = r[as] === null ? null : c.mapFromDriverValue(r[as]);
      out.push(row as { [K in keyof R]: R[K]['_']['data'] });
    }
  }
  return out;
}

/** A column whose value drizzle makes in JS when a row leaves it out (`$defaultFn`, or `$onUpdate` with no default). */
const filledHere = (column: PgColumn) => !!column.defaultFn || (!!column.onUpdateFn && column.default === undefined);

function defaultOf(table: PgTable, key: string, column: PgColumn): unknown {
  if (column.defaultFn) return column.defaultFn();
  if (column.onUpdateFn && column.default === undefined) return column.onUpdateFn();
  if (column.hasDefault && column.default !== undefined && !isSql(column.default)) return column.default;
  if (!column.hasDefault && !column.notNull) return null;
  throw new Error(`insertRows: ${getTableName(table)}.${key} is left out of some rows and has only a database default`);
}

/** The column's name in the database: a name taken from its key is snake_cased, as the database client does. */
const nameOf = (c: PgColumn) => (c.keyAsName ? toSnakeCase(c.name) : c.name);

const isSql = (v: unknown) => typeof v === 'object' && v !== null && 'queryChunks' in v;

interface ColumnOf {
  key: string;
  column: PgColumn;
  /** Its name in the database. */
  name: string;
  type: string;
  /** JSON and arrays go as JSON, for `jsonb_to_recordset` to read as their type; the rest as drizzle sends them. */
  raw: boolean;
}

const columnsCache = new WeakMap<PgTable, ColumnOf[]>();

function columnsOf(table: PgTable): ColumnOf[] {
  let out = columnsCache.get(table);
  if (!out) {
    out = (Object.entries(getTableColumns(table)) as [string, PgColumn][]).map(([key, column]) => ({
      key,
      column,
      name: nameOf(column),
      type: column.getSQLType(),
      raw: ['PgJsonb', 'PgJson', 'PgArray'].includes(column.columnType),
    }));
    columnsCache.set(table, out);
  }
  return out;
}
