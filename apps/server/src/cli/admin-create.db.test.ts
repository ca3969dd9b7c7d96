import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/app.ts';
import { usingServer } from '../../test/db.ts';
import { createAccount, TEST_PASSWORD } from '../../test/factories.ts';
import { openDatabase } from '../db/client.ts';
import { accounts, users } from '../modules/accounts/accounts.tables.ts';
import { login } from '../modules/auth/auth.service.ts';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the CLI as `npm run admin:create` does, on the embedded database under dataDir. */
function runCli(dataDir: string, args: string[]) {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/admin-create.ts', ...args], {
    cwd: serverDir,
    env: { ...env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

/** Opens the CLI's database in this process (after the CLI has exited) to sign in through the service. */
async function withData<T>(dataDir: string, fn: (t: Awaited<ReturnType<typeof createTestApp>>) => Promise<T>) {
  const database = await openDatabase({ dataDir });
  const t = await createTestApp({ database });
  try {
    return await fn(t);
  } finally {
    await t.close();
    await database.close();
  }
}

// The CLI runs on the embedded database under DATA_DIR (DATABASE_URL is taken out of its environment), and so does
// the check after it: with TEST_DATABASE_URL set this file would repeat the same PGlite run, so it runs on PGlite only.
describe.skipIf(usingServer())('npm run admin:create', () => {
  let dataDir = '';
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sy-admin-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates a confirmed, active super admin who can sign in, on a fresh data folder', async () => {
    const run = await runCli(dataDir, [
      '--email',
      'Ops@Switchyard.test',
      '--password',
      'a long admin password',
      '--business',
      'Ops',
      '--firstname',
      'Olga',
      '--lastname',
      'Ops',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Created super admin ops@switchyard\.test \(user usr_\w+, account acc_\w+\)\.\n$/);

    await withData(dataDir, async (t) => {
      const signedIn = await login(
        t.services,
        { email: 'ops@switchyard.test', password: 'a long admin password' },
        { ip: '127.0.0.1' },
      );
      expect(signedIn.meta).toEqual({ authorizationLevel: 'superuser', superUserRole: 'admin' });
      expect(signedIn.account).toMatchObject({ business: 'Ops', status: 'active' });
      expect(signedIn.user).toMatchObject({ firstname: 'Olga', lastname: 'Ops' });
      const [user] = await t.services.db.select().from(users).where(eq(users.email, 'ops@switchyard.test'));
      expect(user?.emailConfirmedAt).toBeInstanceOf(Date);
    });
  });

  it('promotes an existing user instead of creating a second one', async () => {
    const existing = await withData(dataDir, (t) => createAccount(t.services, { status: 'created' }));
    const run = await runCli(dataDir, ['--email', existing.email, '--password', TEST_PASSWORD]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Promoted super admin ${existing.email} (user ${existing.userId}`);
    await withData(dataDir, async (t) => {
      const signedIn = await login(t.services, { email: existing.email, password: TEST_PASSWORD }, { ip: '127.0.0.1' });
      expect(signedIn.meta).toEqual({ authorizationLevel: 'superuser', superUserRole: 'admin' });
      const [account] = await t.services.db.select().from(accounts).where(eq(accounts.id, existing.accountId));
      expect(account?.status).toBe('active');
      expect(await t.services.db.select().from(users).where(eq(users.email, existing.email))).toHaveLength(1);
    });
  });

  it('refuses a short password or a missing address, and says why', async () => {
    // Neither opens the database: both processes start at once.
    const [short, missing] = await Promise.all([
      runCli(dataDir, ['--email', 'x@y.test', '--password', 'short']),
      runCli(dataDir, ['--password', 'a long admin password']),
    ]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('--password: Should be at least 10 characters long');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--email and --password are required.');
  });
});
