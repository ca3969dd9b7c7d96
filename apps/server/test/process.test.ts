import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const serverDir = fileURLToPath(new URL('..', import.meta.url));

interface Running {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  address: string;
}

/** Starts `main.ts` as `npm start` does and waits for its "ready" line. */
async function startServer(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WEB_DIST: '/nonexistent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 60_000);
    child.stdout?.on('data', (chunk) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const part of parts) {
        const line = JSON.parse(part) as Record<string, unknown>;
        lines.push(line);
        if (line.msg === 'Switchyard is ready') {
          clearTimeout(timer);
          resolve(String(line.address));
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  return { child, lines, address };
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

describe('the server process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sy-proc-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on the embedded database, stops gracefully on SIGTERM, and restarts on the same data', async () => {
    const first = await startServer({ DATA_DIR: dataDir });
    const ready = await fetch(`${first.address}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'pglite' });

    first.child.kill('SIGTERM');
    expect(await exitOf(first.child)).toBe(0);
    expect(first.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));

    const second = await startServer({ DATA_DIR: dataDir });
    expect((await fetch(`${second.address}/readyz`)).status).toBe(200);
    second.child.kill('SIGINT');
    expect(await exitOf(second.child)).toBe(0);
  });

  it('refuses to start with an invalid configuration and says why', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: serverDir,
      env: { ...process.env, PORT: 'not-a-port', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    child.stderr?.on('data', (d) => {
      out += d;
    });
    expect(await exitOf(child)).not.toBe(0);
    expect(out).toContain('PORT');
  });
});
