import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UploadedFile } from '@switchyard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { sniffImageType } from './files.service.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('0000000d49484452000000010000000108060000001f15c489', 'hex'),
]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([26, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

/** A multipart/form-data body with one file part (and optional text fields). */
function multipart(file: { field?: string; name: string; type: string; bytes: Buffer } | null, fields = {}) {
  const boundary = `----switchyard${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\n` +
          `Content-Type: ${file.type}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('file uploads', () => {
  let t: TestApp;
  let dataDir: string;
  let owner: Awaited<ReturnType<typeof createSignedInAccount>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'switchyard-files-'));
    t = await createTestApp({ env: { DATA_DIR: dataDir, PUBLIC_URL: 'https://shop.example.test' } });
    owner = await createSignedInAccount(t.services);
  });
  afterAll(async () => {
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const upload = (
    version: 'v1' | 'v2',
    body: ReturnType<typeof multipart>,
    headers: Record<string, string> = owner.headers,
  ) =>
    t.app.inject({
      method: 'POST',
      url: `/api/${version}/files/upload`,
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });

  it('knows images by their bytes', () => {
    expect(sniffImageType(PNG)).toBe('image/png');
    expect(sniffImageType(JPEG)).toBe('image/jpeg');
    expect(sniffImageType(GIF)).toBe('image/gif');
    expect(sniffImageType(WEBP)).toBe('image/webp');
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImageType(Buffer.from('RIFF....WAVE'))).toBeNull();
  });

  it('stores an image under the account with a random name and serves it back', async () => {
    const res = await upload('v1', multipart({ name: '../../etc/passwd.png', type: 'image/png', bytes: PNG }));
    expect(res.statusCode).toBe(201);
    const file = res.json<UploadedFile>();
    expect(file).toMatchObject({ size: PNG.length, contentType: 'image/png' });
    expect(file.name).toMatch(/^[0-9a-f]{32}\.png$/);
    expect(file.url).toBe(`https://shop.example.test/files/${owner.accountId}/${file.name}`);
    expect(await readdir(join(dataDir, 'uploads', owner.accountId))).toEqual([file.name]);

    const served = await t.app.inject({ url: new URL(file.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(PNG)).toBe(true);
    expect(served.headers['x-content-type-options']).toBe('nosniff');

    const jpeg = await upload('v2', multipart({ name: 'photo.png', type: 'image/png', bytes: JPEG }));
    expect(jpeg.json<UploadedFile>()).toMatchObject({ contentType: 'image/jpeg' });
    expect(jpeg.json<UploadedFile>().name).toMatch(/\.jpg$/);
  });

  it('refuses what is not an image, whatever its name and declared type (415)', async () => {
    const res = await upload(
      'v1',
      multipart({ name: 'x.png', type: 'image/png', bytes: Buffer.from('<script>alert(1)</script>') }),
    );
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ code: 415, message: 'Only PNG, JPEG, WebP and GIF images can be uploaded.' });
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/v1/files/upload',
      headers: owner.headers,
      payload: { file: 'x' },
    });
    expect(json.statusCode).toBe(415);
  });

  it('answers a multipart body it cannot parse with 400, not 500', async () => {
    for (const [type, payload] of [
      ['multipart/form-data', '--x\r\n'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nab',
      ],
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/files/upload',
        headers: { ...owner.headers, 'content-type': type },
        payload,
      });
      expect(res.json()).toEqual({
        code: 400,
        message: 'The upload could not be read: send one image as multipart form data in the field "file".',
      });
    }
  });

  it('refuses a file over 10 MB (413) and keeps nothing of it', async () => {
    const before = await readdir(join(dataDir, 'uploads', owner.accountId));
    const big = Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]);
    const res = await upload('v1', multipart({ name: 'big.png', type: 'image/png', bytes: big }));
    expect(res.statusCode).toBe(413);
    expect(res.json<{ message: string }>().message).toBe('The file is larger than 10 MB.');
    expect(await readdir(join(dataDir, 'uploads', owner.accountId))).toEqual(before);
  });

  it('needs the file in the field "file", and a signed-in caller', async () => {
    const none = await upload('v1', multipart(null, { note: 'hello' }));
    expect(none.statusCode).toBe(400);
    const wrongField = await upload('v1', multipart({ field: 'image', name: 'a.png', type: 'image/png', bytes: PNG }));
    expect(wrongField.statusCode).toBe(400);
    expect(wrongField.json<{ message: string }>().message).toContain('field "file"');
    const anonymous = await upload('v1', multipart({ name: 'a.png', type: 'image/png', bytes: PNG }), {});
    expect(anonymous.statusCode).toBe(401);
  });

  it('serves nothing outside the stored names', async () => {
    for (const path of [
      `/files/${owner.accountId}/..%2F..%2Fsecrets.json`,
      `/files/${owner.accountId}/${'0'.repeat(32)}.png`,
      '/files/acc_x/abc.png',
      `/files/..%2Fdb/${'0'.repeat(32)}.png`,
    ]) {
      const res = await t.app.inject({ url: path });
      expect(res.statusCode, path).toBe(404);
    }
  });
});

describe('file uploads to S3-compatible storage', () => {
  let t: TestApp;
  let dataDir: string;
  let s3: Server;
  let fail = false;
  const received: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];

  beforeAll(async () => {
    // A bucket endpoint that keeps what it is sent (path style: /<bucket>/<key>).
    s3 = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks),
        });
        res.writeHead(fail ? 503 : 200, { etag: '"abc"', 'content-type': 'application/xml' });
        res.end(fail ? '<Error><Code>SlowDown</Code><Message>busy</Message></Error>' : '');
      });
    });
    await new Promise<void>((done) => s3.listen(0, '127.0.0.1', done));
    const port = (s3.address() as { port: number }).port;
    dataDir = await mkdtemp(join(tmpdir(), 'switchyard-s3-'));
    t = await createTestApp({
      env: {
        DATA_DIR: dataDir,
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_BUCKET: 'images',
        S3_ACCESS_KEY_ID: 'test-key',
        S3_SECRET_ACCESS_KEY: 'test-secret',
        S3_PUBLIC_URL: 'https://cdn.example.test/images',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((done) => s3.close(done));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('puts the image in the bucket under the account, signed, and answers its public address', async () => {
    const owner = await createSignedInAccount(t.services);
    const body = multipart({ name: 'a.gif', type: 'image/gif', bytes: GIF });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v2/files/upload',
      headers: { ...owner.headers, ...body.headers },
      payload: body.payload,
    });
    expect(res.statusCode).toBe(201);
    const file = res.json<UploadedFile>();
    expect(file.url).toBe(`https://cdn.example.test/images/${owner.accountId}/${file.name}`);
    const put = received.find((r) => r.method === 'PUT');
    expect(put?.url.split('?')[0]).toBe(`/images/${owner.accountId}/${file.name}`);
    expect(put?.headers.authorization).toContain('Credential=test-key/');
    expect(put?.headers['content-type']).toBe('image/gif');
    expect(put?.body.equals(GIF)).toBe(true);
    // Nothing on disk.
    await expect(readdir(join(dataDir, 'uploads'))).rejects.toThrow();

    fail = true;
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v2/files/upload',
      headers: { ...owner.headers, ...body.headers },
      payload: body.payload,
    });
    expect(refused.statusCode).toBe(502);
    expect(refused.json()).toEqual({ code: 502, message: 'The image store did not take the file. Please try again.' });
  });
});
