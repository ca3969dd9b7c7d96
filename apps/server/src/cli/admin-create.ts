// npm run admin:create -- --email a@b.c --password '…' [--business Ops] [--firstname A] [--lastname B]
// Creates (or promotes) a super admin in the database the server uses (DATA_DIR or DATABASE_URL).
import { parseArgs } from 'node:util';
import { createLogger, createServices } from '../bootstrap.ts';
import { loadConfig } from '../config.ts';
import { ensureSuperAdmin, SuperAdminInput } from '../modules/admin/super-admin.ts';

const USAGE =
  "Usage: npm run admin:create -- --email <address> --password '<at least 10 characters>' [--business <name>] [--firstname <name>] [--lastname <name>]";

async function main(): Promise<number> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        business: { type: 'string' },
        firstname: { type: 'string' },
        lastname: { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!values.email || !values.password) {
    process.stderr.write(`--email and --password are required.\n${USAGE}\n`);
    return 2;
  }
  // Checked before the database opens, so a typo answers at once.
  const parsed = SuperAdminInput.safeParse(values);
  if (!parsed.success) {
    process.stderr.write(`${parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n')}\n`);
    return 1;
  }
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const services = await createServices(config, createLogger(config));
  try {
    const result = await ensureSuperAdmin(services.db, parsed.data);
    process.stdout.write(
      `${result.created ? 'Created' : 'Promoted'} super admin ${result.email} (user ${result.userId}, account ${result.accountId}).\n`,
    );
    return 0;
  } finally {
    await services.database.close();
  }
}

process.exitCode = await main();
