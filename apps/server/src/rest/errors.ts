import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, fromDatabaseError, httpStatusFor } from '../lib/errors.ts';

/** The one REST error shape (SPEC §8): `{ code: <number>, message }`, code matching the HTTP status. */
export function sendError(reply: FastifyReply, status: number, message: string) {
  return reply.status(status).type('application/json; charset=utf-8').send({ code: status, message });
}

export const JSON_PROTOTYPE_KEY_MESSAGE = 'The request body must not contain a __proto__ or constructor.prototype key';

/**
 * Fastify's JSON parser, which refuses a body with a `__proto__` or `constructor.prototype` key (prototype
 * poisoning) but calls it "not valid JSON" like a broken one. Valid JSON it refused had such a key: say so.
 */
export function useJsonBodyParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string, done) =>
    parse(req, body, (err, value) => {
      if (err && (err as FastifyError).code === 'FST_ERR_CTP_INVALID_JSON_BODY' && isJson(body)) {
        return done(new DomainError('VALIDATION', JSON_PROTOTYPE_KEY_MESSAGE), undefined);
      }
      done(err, value);
    }),
  );
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function restErrorHandler(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof DomainError) return sendError(reply, httpStatusFor(err.code), err.message);

  if (hasZodFastifySchemaValidationErrors(err)) {
    const where = (err as FastifyError).validationContext ?? 'input';
    const detail = err.validation
      .map((issue) => {
        const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        return path ? `${path}: ${issue.message}` : issue.message;
      })
      .join('; ');
    return sendError(reply, 400, `Invalid ${where}: ${detail}`);
  }

  const dbError = fromDatabaseError(err);
  if (dbError) return sendError(reply, httpStatusFor(dbError.code), dbError.message);

  // Fastify's own client errors (malformed JSON, unsupported media type, body too large) carry a 4xx.
  const status = (err as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return sendError(reply, status, err.message);

  // Never answer with a stack, SQL or bound parameters; the log has the error with the request id.
  const safe = redact(err.message);
  req.log.error(
    { err: { type: err.name, message: safe, stack: err.stack?.replace(err.message, safe) } },
    'unexpected error',
  );
  return sendError(reply, 500, 'Internal server error');
}

/** Drizzle puts the failed SQL and its parameters in the message; keep only what precedes it. */
function redact(message: string): string {
  const cut = message.search(/\b(Failed query|params:)/i);
  return cut >= 0 ? `${message.slice(0, cut).trim()} [query redacted]` : message;
}
