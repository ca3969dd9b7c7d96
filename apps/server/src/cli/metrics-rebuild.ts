// npm run metrics:rebuild -w @switchyard/server [-- --account <id>] [-- --missing]
// Rebuilds the dashboard's rollups from the orders and returns in the database the server uses (DATA_DIR or
// DATABASE_URL): one account, every account (the default), or only accounts with orders missing from them.
import { parseArgs } from 'node:util';
import { createLogger, createServices } from '../bootstrap.ts';
import { loadConfig } from '../config.ts';
import {
  accountExists,
  backfillMetrics,
  rebuildAccountMetrics,
  rebuildAllMetrics,
} from '../modules/metrics/metrics.rebuild.ts';

const USAGE = 'Usage: npm run metrics:rebuild -w @switchyard/server -- [--account <id>] [--missing]';

async function main(): Promise<number> {
  let values: { account?: string; missing?: boolean };
  try {
    ({ values } = parseArgs({
      options: { account: { type: 'string' }, missing: { type: 'boolean' } },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const services = await createServices(config, createLogger(config));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  try {
    if (values.account) {
      if (!(await accountExists(services.db, values.account))) {
        process.stderr.write(`No account ${values.account}.\n`);
        return 1;
      }
      const { facts } = await rebuildAccountMetrics(services.db, values.account);
      log(`metrics: account ${values.account} rebuilt from ${facts} orders and returns`);
      return 0;
    }
    const count = values.missing ? await backfillMetrics(services.db, log) : await rebuildAllMetrics(services.db, log);
    log(`metrics: ${count} ${count === 1 ? 'account' : 'accounts'} rebuilt`);
    return 0;
  } finally {
    await services.database.close();
  }
}

process.exitCode = await main();
