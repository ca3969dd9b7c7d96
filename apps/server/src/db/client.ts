import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { type ExtractTablesWithRelations, sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { preparingPoolOptions } from './prepared.ts';
import * as schema from './schema.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** What `db.transaction(tx => …)` hands its callback (the relations parameter spelled out, else it mismatches). */
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Raw SQL access for pg-boss: `executeSql(text, values)` answering `{ rows }`. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface Database extends SqlExecutor {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** For pg-boss on a server: it keeps a pool of its own. */
  readonly connectionString?: string;
  /** Pool options for connections to the same server (prepared.ts: statements repeated are prepared), if any. */
  readonly poolOptions?: Partial<pg.PoolConfig>;
  /**
   * Where webhook acknowledgements are written (channels.intake.ts): on a server, a connection of their own, so
   * a provider never waits for one of the pool's to come free from a batch's transaction. PGlite: `db`.
   */
  readonly intake: Db;
  migrate(): Promise<void>;
  /**
   * Holds the lock named `key` across processes until the answered release is called or the process dies;
   * null when another holder has it. On PostgreSQL a session advisory lock on a connection of its own; PGlite
   * belongs to one process, so there it is always granted (callers serialise within the process).
   */
  exclusive(key: string): Promise<(() => Promise<void>) | null>;
  /** True when the database answers and every committed migration is applied. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

export type DatabaseOptions =
  | { url: string; poolMax?: number; prepareStatements?: boolean }
  | { dataDir: string } // PGlite persisted under dataDir/db
  | { memory: true; loadDataDir?: Blob }; // PGlite in memory (tests), optionally from a dump (`dumpDataDir`)

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return 'url' in options
    ? openPostgres(options.url, options.poolMax ?? 10, options.prepareStatements ?? true)
    : openPglite(options);
}

async function openPglite(options: { dataDir: string } | { memory: true; loadDataDir?: Blob }): Promise<Database> {
  let dir: string | undefined;
  if ('dataDir' in options) {
    dir = join(options.dataDir, 'db');
    mkdirSync(dir, { recursive: true });
  }
  const loadDataDir = 'loadDataDir' in options ? options.loadDataDir : undefined;
  // pg_trgm: the orders search index (migration 0012), as on a PostgreSQL server.
  const client = await PGlite.create(dir, { extensions: { pg_trgm }, ...(loadDataDir ? { loadDataDir } : {}) });
  const db = drizzlePglite({ client, schema, casing: 'snake_case' }) as unknown as Db;
  let closed = false;
  return {
    kind: 'pglite',
    db,
    intake: db,
    async executeSql(text, values = []) {
      // pg-boss sends its schema set-up as one multi-statement text, which only the simple protocol takes.
      if (values.length === 0 && text.includes(';')) {
        const results = await client.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      }
      return client.query(text, values);
    },
    migrate: () => migratePglite(drizzlePglite({ client, casing: 'snake_case' }), { migrationsFolder }),
    exclusive: async () => async () => {},
    isReady: () => migrationsApplied(db),
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

async function openPostgres(url: string, poolMax: number, prepareStatements: boolean): Promise<Database> {
  const poolOptions = prepareStatements ? preparingPoolOptions : {};
  const pool = new pg.Pool({ connectionString: url, max: poolMax, ...poolOptions });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = drizzleNodePg({ client: pool, schema, casing: 'snake_case' }) as unknown as Db;
  const intakePool = new pg.Pool({ connectionString: url, max: 1, ...poolOptions });
  intakePool.on('error', () => {});
  const intake = drizzleNodePg({ client: intakePool, schema, casing: 'snake_case' }) as unknown as Db;
  let closed = false;
  return {
    kind: 'postgres',
    db,
    intake,
    connectionString: url,
    poolOptions,
    executeSql: (text, values = []) => pool.query(text, values),
    migrate: () => migrateNodePg(drizzleNodePg({ client: pool, casing: 'snake_case' }), { migrationsFolder }),
    async exclusive(key) {
      const client = await pool.connect();
      try {
        const { rows } = await client.query('select pg_try_advisory_lock(hashtextextended($1, 0)) as ok', [key]);
        if (!rows[0]?.ok) {
          client.release();
          return null;
        }
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        try {
          await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [key]);
          client.release();
        } catch (err) {
          // A connection dropped with the lock held gives the lock up with it.
          client.release(err as Error);
        }
      };
    },
    isReady: () => migrationsApplied(db),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([pool.end(), intakePool.end()]);
    },
  };
}

let journalSize: number | undefined;
function committedMigrations(): number {
  journalSize ??= (
    JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
      entries: unknown[];
    }
  ).entries.length;
  return journalSize;
}

async function migrationsApplied(db: Db): Promise<boolean> {
  try {
    const result: unknown = await db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
    return (rows[0]?.n ?? 0) >= committedMigrations();
  } catch {
    return false;
  }
}
