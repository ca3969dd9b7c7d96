// Statements repeated are prepared once per connection (prepared.ts): on a PostgreSQL server only.
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingServer } from '../../test/db.ts';
import { systemSettings } from '../modules/settings/settings.tables.ts';
import type { Database } from './client.ts';
import { PREPARE_AFTER, PREPARED_PER_CONNECTION, PreparingClient } from './prepared.ts';

const prepared = async (client: { query: (text: string) => Promise<{ rows: unknown[] }> }) =>
  (await client.query('select name, statement from pg_prepared_statements order by name')).rows as {
    name: string;
    statement: string;
  }[];

describe.skipIf(!usingServer())('statements prepared once per connection', () => {
  let pool: pg.Pool;
  let database: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.connectionString, max: 1, Client: PreparingClient });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.close();
  });

  it('prepares a statement once it repeats, and it answers as before', async () => {
    const text = `select $1::int * 2 as n /* ${Math.random()} */`;
    for (let i = 1; i <= PREPARE_AFTER - 1; i++) expect((await pool.query(text, [i])).rows).toEqual([{ n: i * 2 }]);
    expect((await prepared(pool)).map((p) => p.statement)).not.toContain(text);
    for (let i = 10; i < 15; i++) expect((await pool.query(text, [i])).rows).toEqual([{ n: i * 2 }]);
    expect((await prepared(pool)).filter((p) => p.statement === text)).toHaveLength(1);
    // A config object (as drizzle sends) is named the same way.
    expect((await pool.query({ text, values: [21] })).rows).toEqual([{ n: 42 }]);
    expect((await prepared(pool)).filter((p) => p.statement === text)).toHaveLength(1);
  });

  it('keeps the connection usable when a prepared statement fails, or never parses', async () => {
    const divide = `select 10 / $1::int as n /* ${Math.random()} */`;
    for (let i = 0; i < PREPARE_AFTER + 1; i++) expect((await pool.query(divide, [5])).rows).toEqual([{ n: 2 }]);
    await expect(pool.query(divide, [0])).rejects.toThrow('division by zero');
    expect((await pool.query(divide, [2])).rows).toEqual([{ n: 5 }]);
    const broken = `selec $1::int /* ${Math.random()} */`;
    for (let i = 0; i < PREPARE_AFTER + 2; i++) await expect(pool.query(broken, [1])).rejects.toThrow('syntax error');
    expect((await pool.query(divide, [1])).rows).toEqual([{ n: 10 }]);
  });

  it(`keeps at most ${PREPARED_PER_CONNECTION} on a connection; the rest run unnamed`, async () => {
    const before = (await prepared(pool)).length;
    const texts = Array.from(
      { length: PREPARED_PER_CONNECTION - before + 5 },
      (_, i) => `select $1::int + ${i} as n /* cap */`,
    );
    for (const [i, text] of texts.entries())
      for (let run = 0; run < PREPARE_AFTER; run++) expect((await pool.query(text, [1])).rows).toEqual([{ n: 1 + i }]);
    expect(await prepared(pool)).toHaveLength(PREPARED_PER_CONNECTION);
  });

  it('the application database prepares drizzle’s repeated statements', async () => {
    const key = `prepared_${Math.random().toString(36).slice(2)}`;
    await database.db.insert(systemSettings).values({ key, value: 'yes' });
    const names = await database.db.transaction(async (tx) => {
      for (let i = 0; i < PREPARE_AFTER + 1; i++) {
        const rows = await tx.select().from(systemSettings).where(eq(systemSettings.key, key));
        expect(rows.map((r) => r.value)).toEqual(['yes']);
      }
      const result = await tx.execute(sql`select statement from pg_prepared_statements`);
      return (result as unknown as { rows: { statement: string }[] }).rows.map((r) => r.statement);
    });
    expect(names.some((s) => s.includes('from "system_settings"'))).toBe(true);
  });
});
