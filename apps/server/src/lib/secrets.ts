import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Secrets the app needs even when the operator has set none (a newcomer's `npm start`): made once,
 * kept in DATA_DIR/secrets.json (mode 0600), so sessions survive a restart. Never in the repo.
 */
export function localSecret(dataDir: string, name: string): string {
  const file = join(dataDir, 'secrets.json');
  let secrets: Record<string, string> = {};
  try {
    secrets = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // first start: no file yet
  }
  const existing = secrets[name];
  if (existing) return existing;
  const value = randomBytes(32).toString('base64url');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ ...secrets, [name]: value }, null, 2), { mode: 0o600 });
  return value;
}
