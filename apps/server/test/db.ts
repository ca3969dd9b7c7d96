import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { type Database, migrationsFolder, openDatabase } from '../src/db/client.ts';

/**
 * A fresh, migrated database for one test file: PGlite in memory, or a new database on the
 * PostgreSQL server named by TEST_DATABASE_URL (dropped again by `close`).
 *
 * Both start from a template made once per set of migrations: a new PGlite runs initdb (about 2.5 s of CPU
 * each time), loading a dump of one already migrated takes about 0.6 s; on a server, `create database …
 * template` copies a migrated one instead of running every migration again. The template's name carries a
 * hash of the migrations, so a new migration makes a new template; `migrate()` then finds nothing to do.
 */
export async function createTestDatabase({ migrate = true } = {}): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase({ memory: true, loadDataDir: await pgliteTemplate(migrate) });
    if (migrate) await database.migrate();
    return database;
  }
  const name = `sy_test_${randomBytes(6).toString('hex')}`;
  const template = migrate ? await serverTemplate(serverUrl) : null;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolMax: 5 });
  if (migrate) await database.migrate();
  return {
    ...database,
    async close() {
      await database.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

export const usingServer = () => !!process.env.TEST_DATABASE_URL;

/** A short hash of the migration files (names and contents). */
const migrationsHash = (() => {
  let hash: string | undefined;
  return () => {
    if (hash) return hash;
    const h = createHash('sha256');
    for (const dir of [migrationsFolder, join(migrationsFolder, 'meta')]) {
      for (const file of readdirSync(dir).sort()) {
        if (!file.endsWith('.sql') && !file.endsWith('.json')) continue;
        h.update(file).update(readFileSync(join(dir, file)));
      }
    }
    hash = h.digest('hex').slice(0, 16);
    return hash;
  };
})();

/**
 * The dump of a PGlite just made (and migrated, when `migrated`), kept in the temporary folder for every test
 * process of this checkout. Two processes making it at once each write their own file and rename it in place.
 */
async function pgliteTemplate(migrated: boolean): Promise<Blob> {
  const file = join(tmpdir(), `switchyard-pglite-${migrated ? migrationsHash() : 'empty'}-${pgliteVersion()}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const client = await PGlite.create(undefined, { extensions: { pg_trgm } });
  try {
    if (migrated) await migratePglite(drizzle({ client, casing: 'snake_case' }), { migrationsFolder });
    const dump = await client.dumpDataDir('none');
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
    pruneTemplates(file);
    return dump;
  } finally {
    await client.close();
  }
}

/** Templates of other migrations (43 MB each) untouched for a day go: a checkout that needs one makes it again. */
function pruneTemplates(keep: string) {
  const dayAgo = Date.now() - 86_400_000;
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (!name.startsWith('switchyard-pglite-') || path === keep) continue;
    try {
      if (statSync(path).mtimeMs < dayAgo) rmSync(path, { force: true });
    } catch {
      // Gone already (another test process pruned it).
    }
  }
}

function pgliteVersion(): string {
  // The package's exports hide its package.json: found beside its entry point.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const root = entry.slice(0, entry.lastIndexOf('@electric-sql/pglite') + '@electric-sql/pglite'.length);
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * A migrated database on the server to copy from, made once per set of migrations. Several test processes
 * may ask at once: an advisory lock lets one make it; a template left half-made by a crash is made again.
 */
async function serverTemplate(serverUrl: string): Promise<string> {
  const name = `sy_template_${migrationsHash()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock(720415)');
    const found = await admin.query<{ datistemplate: boolean }>(
      'select datistemplate from pg_database where datname = $1',
      [name],
    );
    if (found.rows[0]?.datistemplate) return name;
    if (found.rows[0]) await admin.query(`drop database ${name} with (force)`);
    await admin.query(`create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ url: url.toString(), poolMax: 1 });
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
    // Marked a template only once migrated: a half-made one is never copied.
    await admin.query(`alter database ${name} with is_template true`);
    return name;
  } finally {
    await admin.query('select pg_advisory_unlock(720415)').catch(() => {});
    await admin.end();
  }
}
