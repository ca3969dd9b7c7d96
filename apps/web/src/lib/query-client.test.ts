import { TRPCClientError } from '@trpc/client';
import { describe, expect, it, vi } from 'vitest';
import { createQueryClient, retryUnlessRefused, shouldRetry } from './query-client.ts';

const unauthorized = Object.assign(new Error('Request failed with status code 401'), {
  response: { status: 401, data: { code: 401, message: 'Session expired' } },
});

describe('query client defaults', () => {
  it('keeps data fresh for 60 s and unused entries for 5 min', () => {
    const { queries } = createQueryClient().getDefaultOptions();
    expect(queries?.staleTime).toBe(60_000);
    expect(queries?.gcTime).toBe(300_000);
  });

  it('backs off 1 s, 2 s, 4 s … and never waits more than 30 s', () => {
    const retryDelay = createQueryClient().getDefaultOptions().queries?.retryDelay;
    if (typeof retryDelay !== 'function') throw new Error('retryDelay should be a function');
    const delays = [0, 1, 2, 3, 4, 5, 6].map((attempt) => retryDelay(attempt, new Error('x')));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it('retries three times, except an expired session', () => {
    expect([0, 1, 2, 3].map((count) => shouldRetry(count, new Error('Network Error')))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(shouldRetry(0, unauthorized)).toBe(false);
  });

  it('does not ask again what was refused (a 4xx, from tRPC or REST), but retries a failure', () => {
    const trpcRefusal = new TRPCClientError('No such rule', {
      result: { error: { data: { httpStatus: 404 } } },
    } as never);
    const restRefusal = Object.assign(new Error('Request failed with status code 403'), { response: { status: 403 } });
    const restFailure = Object.assign(new Error('Request failed with status code 503'), { response: { status: 503 } });
    expect(retryUnlessRefused(0, trpcRefusal)).toBe(false);
    expect(retryUnlessRefused(0, restRefusal)).toBe(false);
    expect(retryUnlessRefused(0, restFailure)).toBe(true);
    expect(retryUnlessRefused(0, new Error('Network Error'))).toBe(true);
    expect(retryUnlessRefused(3, restFailure)).toBe(false);
  });

  it('runs a failing query four times with the backoff in between', async () => {
    vi.useFakeTimers();
    const queryFn = vi.fn().mockRejectedValue(new Error('Network Error'));
    const client = createQueryClient();
    const result = client.fetchQuery({ queryKey: ['flaky'], queryFn }).catch((err: unknown) => err);

    await vi.advanceTimersByTimeAsync(0);
    expect(queryFn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(queryFn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(queryFn).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(queryFn).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(4000);
    expect(queryFn).toHaveBeenCalledTimes(4);
    await expect(result).resolves.toEqual(new Error('Network Error'));
  });

  it('hands every failed query and mutation to onError', async () => {
    const onError = vi.fn();
    const client = createQueryClient({ onError });
    await client
      .fetchQuery({ queryKey: ['denied'], queryFn: () => Promise.reject(unauthorized), retry: false })
      .catch(() => undefined);
    const mutationError = new Error('Could not save');
    await client
      .getMutationCache()
      .build(client, { mutationFn: () => Promise.reject(mutationError) })
      .execute(undefined)
      .catch(() => undefined);
    expect(onError.mock.calls).toEqual([[unauthorized], [mutationError]]);
  });
});
