import multipart from '@fastify/multipart';
import { UPLOAD_MAX_BYTES, UploadedFile } from '@switchyard/contracts';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../lib/errors.ts';
import { sendError } from '../../rest/errors.ts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { notAnImage, openStoredImage, storeImage, tooLarge } from './files.service.ts';

/** SPEC §7 v1 and v2 `POST files/upload`: one image in the multipart field `file`. */
export function filesRest(app: RestApp, services: Services) {
  app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: UPLOAD_MAX_BYTES, files: 1, fields: 10, parts: 11, fieldSize: 1024 },
    });
    restRoute(scope, services, {
      method: 'POST',
      url: '/files/upload',
      summary: 'Upload a product image (PNG, JPEG, WebP or GIF, at most 10 MB) as multipart field `file`',
      tags: ['files'],
      output: UploadedFile,
      handler: async ({ actor, req, reply }) => {
        let bytes: Buffer;
        try {
          const part = await req.file();
          if (part?.fieldname !== 'file') {
            throw new DomainError('VALIDATION', 'Send the image as multipart form data in the field "file".');
          }
          bytes = await part.toBuffer();
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
          if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') throw notAnImage();
          if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
            throw new DomainError('VALIDATION', 'Upload one file at a time.');
          }
          if (err instanceof DomainError) throw err;
          // Anything else here is the body failing to parse (no boundary, a part cut short): the client's fault.
          throw new DomainError(
            'VALIDATION',
            'The upload could not be read: send one image as multipart form data in the field "file".',
          );
        }
        const stored = await storeImage(services, actor.accountId, bytes);
        reply.status(201);
        return stored;
      },
    });
  });
}

/**
 * `GET /files/{account}/{name}`: the stored images, public and read-only (the channels fetch them by
 * address when a product is published; the names are random and unguessable).
 */
export async function fileRoutes(app: FastifyInstance, services: Services) {
  app.get<{ Params: { account: string; name: string } }>('/files/:account/:name', async (req, reply) => {
    const file = await openStoredImage(services, req.params.account, req.params.name);
    if (!file) return sendError(reply, 404, 'File not found');
    return reply
      .header('content-type', file.contentType)
      .header('content-length', file.size)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(file.stream);
  });
}
