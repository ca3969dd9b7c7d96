import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export interface RunningServer {
  url: string;
  /** The in-process provider sandbox (its control API is under /_control), from the ready log line. */
  sandbox: string | undefined;
  stop(): Promise<void>;
}

/** Starts the real server (as `npm start` does, minus the build) on a free port with its own data folder. */
/** A port nothing listens on now, so links in e-mails (PUBLIC_URL) can name it before the server starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Credentials {
  email: string;
  password: string;
}

export async function startServer(
  env: Record<string, string> = {},
  options: { admin?: Credentials } = {},
): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sy-e2e-'));
  const port = await freePort();
  if (options.admin) {
    // The documented CLI, on the data folder the server is about to open (PGlite allows one process at a time).
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/admin-create.ts',
        '--email',
        options.admin.email,
        '--password',
        options.admin.password,
        '--business',
        'Switchyard Ops',
      ],
      {
        cwd: join(repoRoot, 'apps/server'),
        env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
        stdio: 'inherit',
      },
    );
  }
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: join(repoRoot, 'apps/server'),
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      // The journeys read their confirmation and reset e-mails from the development mailbox.
      DEV_MAILBOX: 'true',
      // The in-process sandbox on a free port of its own.
      SANDBOX_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // E2E_SERVER_LOG=<prefix>: each server's log goes to <prefix>-<port>.log too (and E2E_KEEP_DATA keeps its
  // database), to read what happened after a journey failed.
  const logFile = process.env.E2E_SERVER_LOG ? `${process.env.E2E_SERVER_LOG}-${port}.log` : null;
  const ready = await new Promise<{ address: string; sandbox?: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 180_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
      if (logFile) appendFileSync(logFile, chunk);
      const line = output.split('\n').find((entry) => entry.includes('"Switchyard is ready"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return {
    url: ready.address,
    sandbox: ready.sandbox,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (process.env.E2E_KEEP_DATA) console.log(`[e2e] kept the database of ${port} in ${dataDir}`);
      else rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
