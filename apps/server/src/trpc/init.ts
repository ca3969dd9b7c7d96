import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { z } from 'zod';
import { DomainError, fromDatabaseError, trpcCodeFor } from '../lib/errors.ts';
import { assertStorable } from '../lib/storable.ts';
import { assertWritable, writableWhileReadOnly } from '../modules/billing/read-only.ts';
import type { Context } from './context.ts';

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error, type }) {
    const cause = error.cause;
    return {
      ...shape,
      message:
        cause instanceof z.ZodError && error.code === 'BAD_REQUEST'
          ? validationMessage(cause)
          : publicMessage(shape.message, error.code, type),
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        path: shape.data.path,
        ...(cause instanceof DomainError ? { domainCode: cause.code } : {}),
        ...(cause instanceof z.ZodError ? { zodError: z.flattenError(cause) } : {}),
      },
    };
  },
});

/**
 * A refused input in words, as REST answers it ("status: Status must be a whole number from 0 to 9"): each
 * problem with the field it is about, the first three of them. (tRPC's own message is the issues as JSON text.)
 */
export function validationMessage(error: z.ZodError): string {
  const lines = error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  const more = error.issues.length - lines.length;
  return `${lines.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

function publicMessage(message: string, code: TRPCError['code'], type: string): string {
  // An unexpected failure is logged with the request id (onError) and answered without detail.
  if (code === 'INTERNAL_SERVER_ERROR') return 'Internal server error';
  // SPEC §8 names the missing-procedure message of tRPC's own wording: 'No "query"-procedure on path "x.y"'.
  const missing = code === 'NOT_FOUND' ? /^No procedure found on path "(.*)"$/.exec(message) : null;
  if (missing) return `No "${type === 'unknown' ? 'query' : type}"-procedure on path "${missing[1]}"`;
  return message;
}

// `await next()` never throws: a failure comes back as { ok: false } with the original on error.cause.
// A database error that is the caller's fault (a value it cannot store) maps through the same table.
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  const failure = result.ok ? undefined : result.error.cause;
  const cause = failure instanceof DomainError ? failure : fromDatabaseError(failure);
  if (cause) throw new TRPCError({ code: trpcCodeFor(cause.code), message: cause.message, cause });
  return result;
});

// The one guard of what PostgreSQL cannot hold (lib/storable.ts), on the raw input of every procedure,
// before its own schema; REST runs the same check in its preValidation hook (rest/api.ts).
const refuseUnstorable = t.middleware(async ({ getRawInput, next }) => {
  assertStorable(await getRawInput(), 'input');
  return next();
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(mapDomainErrors).use(refuseUnstorable);

export const authedProcedure = publicProcedure
  .use(({ ctx, next }) => {
    if (!ctx.actor) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Please sign in to continue.' });
    return next({ ctx: { ...ctx, actor: ctx.actor } });
  })
  // past_due beyond the grace period: read-only, except paying and signing in or out (modules/billing).
  .use(async ({ ctx, type, path, next }) => {
    if (type === 'mutation' && !writableWhileReadOnly(path)) await assertWritable(ctx.services.db, ctx.actor.accountId);
    return next();
  });

export const superuserProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.actor.authorizationLevel !== 'superuser') {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'This needs a superuser.' });
  }
  return next();
});

export const superAdminProcedure = superuserProcedure.use(({ ctx, next }) => {
  if (ctx.actor.superUserRole !== 'admin') {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'This needs a super admin.' });
  }
  return next();
});
