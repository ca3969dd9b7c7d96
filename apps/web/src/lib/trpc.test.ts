import { describe, expect, it } from 'vitest';
import { trpcFetch } from '../test/trpc-stub.ts';
import { createTrpcClient } from './trpc.ts';

const echo = trpcFetch({
  'health.checkBuildId': (input) => ({ match: (input as { buildId: string }).buildId === 'b1' }),
});

describe('tRPC client', () => {
  it('batches calls made together into one request', async () => {
    const fetch = trpcFetch({ 'health.checkBuildId': () => ({ match: true }) });
    const client = createTrpcClient({ fetch });
    await Promise.all([
      client.health.checkBuildId.query({ buildId: 'b1' }),
      client.health.checkBuildId.query({ buildId: 'b2' }),
    ]);
    expect(fetch.calls).toHaveLength(1);
    const [call] = fetch.calls;
    expect(call?.url.pathname).toBe('/api/trpc/health.checkBuildId,health.checkBuildId');
    expect(call?.url.searchParams.get('batch')).toBe('1');
    expect(call?.method).toBe('GET');
    expect(call?.inputs).toEqual([{ buildId: 'b1' }, { buildId: 'b2' }]);
  });

  it('sends a call flagged skipBatch on its own', async () => {
    const fetch = trpcFetch({ 'health.checkBuildId': () => ({ match: true }) });
    const client = createTrpcClient({ fetch });
    await Promise.all([
      client.health.checkBuildId.query({ buildId: 'b1' }, { context: { skipBatch: true } }),
      client.health.checkBuildId.query({ buildId: 'b2' }),
    ]);
    const alone = fetch.calls.find((call) => !call.batched);
    expect(fetch.calls).toHaveLength(2);
    expect(alone?.url.pathname).toBe('/api/trpc/health.checkBuildId');
    expect(alone?.url.searchParams.has('batch')).toBe(false);
    expect(alone?.inputs).toEqual([{ buildId: 'b1' }]);
  });

  it('carries the stored token as a bearer header', async () => {
    window.localStorage.setItem('token', 'tok-123');
    const fetch = trpcFetch({ 'health.checkBuildId': () => ({ match: true }) });
    await createTrpcClient({ fetch }).health.checkBuildId.query({ buildId: 'b1' });
    expect(fetch.calls[0]?.headers.get('Authorization')).toBe('Bearer tok-123');
  });

  it('sends no authorization header when signed out', async () => {
    const fetch = trpcFetch({ 'health.checkBuildId': () => ({ match: true }) });
    await createTrpcClient({ fetch }).health.checkBuildId.query({ buildId: 'b1' });
    expect(fetch.calls[0]?.headers.has('Authorization')).toBe(false);
  });

  it('round-trips input and output through superjson', async () => {
    const client = createTrpcClient({ fetch: echo });
    await expect(client.health.checkBuildId.query({ buildId: 'b1' })).resolves.toEqual({ match: true });
    await expect(client.health.checkBuildId.query({ buildId: 'other' })).resolves.toEqual({ match: false });
  });
});
