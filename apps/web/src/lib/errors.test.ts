import { MESSAGES } from '@switchyard/contracts';
import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { ProcedureError, rawFetch, trpcFetch } from '../test/trpc-stub.ts';
import { errorMessage, isUnauthorized } from './errors.ts';
import { createTrpcClient } from './trpc.ts';

function failure(data: unknown, message = 'Request failed with status code 400') {
  return Object.assign(new Error(message), { response: { status: 400, data } });
}

describe('errorMessage', () => {
  it('prefers the response message', () => {
    expect(errorMessage(failure({ message: 'Email is taken', error: 'Conflict' }))).toBe('Email is taken');
  });

  it('falls back to the response error', () => {
    expect(errorMessage(failure({ error: 'Conflict' }))).toBe('Conflict');
  });

  it('falls back to a text body', () => {
    expect(errorMessage(failure('Service unavailable'))).toBe('Service unavailable');
  });

  it('falls back to the error message', () => {
    expect(errorMessage(failure({ unrelated: true }))).toBe('Request failed with status code 400');
    expect(errorMessage(new Error('Network Error'))).toBe('Network Error');
  });

  it('skips empty fields on the way down', () => {
    expect(errorMessage(failure({ message: '', error: 'Conflict' }))).toBe('Conflict');
    expect(errorMessage(failure(''))).toBe('Request failed with status code 400');
  });
});

describe('tRPC errors', () => {
  const callWith = async (fetch: typeof globalThis.fetch) =>
    createTrpcClient({ fetch })
      .health.checkBuildId.query({ buildId: 'b1' })
      .then(() => undefined)
      .catch((err: unknown) => err);

  it('reads the message of a procedure error', async () => {
    const error = await callWith(
      trpcFetch({
        'health.checkBuildId': () => {
          throw new ProcedureError('BAD_REQUEST', 'Build id is too long');
        },
      }),
    );
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(errorMessage(error)).toBe('Build id is too long');
    expect(isUnauthorized(error)).toBe(false);
  });

  it('recognises UNAUTHORIZED', async () => {
    const error = await callWith(
      trpcFetch({
        'health.checkBuildId': () => {
          throw new ProcedureError('UNAUTHORIZED', 'Please sign in again');
        },
      }),
    );
    expect(isUnauthorized(error)).toBe(true);
    expect(errorMessage(error)).toBe('Please sign in again');
  });

  it('reports a body that is not JSON as untransformable', async () => {
    const error = await callWith(rawFetch('<!doctype html><title>Proxy error</title>', { status: 502 }));
    expect(errorMessage(error)).toBe(MESSAGES.untransformable);
  });

  it('reports JSON of the wrong shape as untransformable', async () => {
    const error = await callWith(rawFetch('[{"unexpected":"shape"}]'));
    expect(errorMessage(error)).toBe('Unable to transform response from server');
  });
});
