// Product images (issue 6): uploaded through v1/v2 `POST files/upload`, checked by their content (not the
// name or the declared type), kept under DATA_DIR/uploads/<account>/<random name>, and served read-only at
// /files/<account>/<name> so the channels can fetch them when a product is published. With S3_BUCKET set
// they go to that S3-compatible bucket instead (key <account>/<name>), and the bucket serves them.

import { randomBytes } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import { createReadStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { UPLOAD_MAX_BYTES, type UploadedFile } from '@switchyard/contracts';
import { type Config, publicUrl } from '../../config.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';

type ImageType = UploadedFile['contentType'];

const EXTENSIONS: Record<ImageType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};
const TYPE_OF_EXTENSION = Object.fromEntries(Object.entries(EXTENSIONS).map(([t, e]) => [e, t as ImageType]));

/** The image type the bytes say, whatever the name or the declared type claim. */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  const at = (i: number) => bytes[i];
  const ascii = (from: number, text: string) => [...text].every((c, i) => at(from + i) === c.charCodeAt(0));
  if ([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => at(i) === b)) return 'image/png';
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg';
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  return null;
}

const uploadsRoot = (services: Services) => resolve(services.config.DATA_DIR, 'uploads');

/** Account ids and stored names as we make them; anything else is not one of our files (no path tricks). */
const ACCOUNT = /^acc_[0-9a-z]{10,40}$/;
const NAME = /^[0-9a-f]{32}\.(png|jpg|webp|gif)$/;

/** Stores an uploaded image of the account and answers where channels can fetch it. */
export async function storeImage(services: Services, accountId: string, bytes: Buffer): Promise<UploadedFile> {
  if (bytes.length === 0) throw new DomainError('VALIDATION', 'The file is empty.');
  if (bytes.length > UPLOAD_MAX_BYTES) throw tooLarge();
  const contentType = sniffImageType(bytes);
  if (!contentType) throw notAnImage();
  const name = `${randomBytes(16).toString('hex')}.${EXTENSIONS[contentType]}`;
  const bucket = s3Of(services.config);
  if (bucket) {
    const key = `${accountId}/${name}`;
    try {
      await bucket.client.send(
        new PutObjectCommand({
          Bucket: bucket.name,
          Key: key,
          Body: bytes,
          ContentType: contentType,
          ContentLength: bytes.length,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
    } catch (err) {
      services.logger.error(
        { err: { type: (err as Error).name, message: (err as Error).message } },
        'S3 upload failed',
      );
      throw new DomainError('UPSTREAM_FAILED', 'The image store did not take the file. Please try again.');
    }
    return { url: `${bucket.publicBase}/${key}`, name, size: bytes.length, contentType };
  }
  const folder = join(uploadsRoot(services), accountId);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, name), bytes, { flag: 'wx' });
  return {
    url: `${publicUrl(services.config)}/files/${accountId}/${name}`,
    name,
    size: bytes.length,
    contentType,
  };
}

export function tooLarge() {
  return Object.assign(new Error(`The file is larger than ${UPLOAD_MAX_BYTES / (1024 * 1024)} MB.`), {
    statusCode: 413,
  });
}

export function notAnImage() {
  return Object.assign(new Error('Only PNG, JPEG, WebP and GIF images can be uploaded.'), { statusCode: 415 });
}

/** A stored file to serve, or null when there is none by that account and name. */
export async function openStoredImage(
  services: Services,
  accountId: string,
  name: string,
): Promise<{ stream: ReadStream; size: number; contentType: ImageType } | null> {
  if (!ACCOUNT.test(accountId) || !NAME.test(name)) return null;
  const path = join(uploadsRoot(services), accountId, name);
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return null;
  const extension = name.slice(name.lastIndexOf('.') + 1);
  return { stream: createReadStream(path), size: info.size, contentType: TYPE_OF_EXTENSION[extension] as ImageType };
}

const buckets = new WeakMap<Config, { client: S3Client; name: string; publicBase: string } | null>();

/** The configured bucket (one client per configuration), or null when uploads stay on disk. */
export function s3Of(config: Config) {
  if (buckets.has(config)) return buckets.get(config) ?? null;
  let bucket: { client: S3Client; name: string; publicBase: string } | null = null;
  if (config.S3_BUCKET) {
    const endpoint = config.S3_ENDPOINT?.replace(/\/$/, '');
    const client = new S3Client({
      region: config.S3_REGION,
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      ...(config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } }
        : {}),
    });
    const publicBase =
      config.S3_PUBLIC_URL?.replace(/\/$/, '') ??
      (endpoint
        ? `${endpoint}/${config.S3_BUCKET}`
        : `https://${config.S3_BUCKET}.s3.${config.S3_REGION}.amazonaws.com`);
    bucket = { client, name: config.S3_BUCKET, publicBase };
  }
  buckets.set(config, bucket);
  return bucket;
}
