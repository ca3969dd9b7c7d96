import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/** Reads a 32-byte key given as base64, base64url or hex. */
export function parseKey(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64url');
  if (key.length !== 32) throw new Error('CREDENTIALS_KEY must be 32 bytes (base64 or hex)');
  return key;
}

/**
 * AES-256-GCM with a fresh 96-bit nonce per value: `v1.<nonce>.<tag>.<ciphertext>` (base64url). `aad`
 * binds the value to its row (e.g. the channel id), so a ciphertext copied onto another row fails.
 */
export function encryptJson(key: Buffer, value: unknown, aad = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function decryptJson<T>(key: Buffer, sealed: string, aad = ''): T {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('Unreadable sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  return JSON.parse(text) as T;
}
