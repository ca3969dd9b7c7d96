import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs, ProviderHttpError, parseRetryAfter, providerRequest, TokenBucket } from './http.ts';

describe('backoff', () => {
  it('waits at least what Retry-After asks and never more than the cap', () => {
    expect(backoffMs(0, 2000, () => 0.5)).toBe(2000);
    expect(backoffMs(10, null, () => 0.999)).toBeLessThanOrEqual(20_000);
    expect(backoffMs(2, null, () => 0.5)).toBe(500);
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 5000)).toBe(5000);
    expect(parseRetryAfter(null)).toBeNull();
  });
});

describe('TokenBucket', () => {
  it('makes a caller wait when the bucket is empty', async () => {
    const bucket = new TokenBucket(2, 20);
    const started = Date.now();
    await bucket.acquire();
    await bucket.acquire();
    await bucket.acquire();
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
  });

  it('takes the provider at its word', () => {
    const bucket = new TokenBucket(1000, 50);
    bucket.observe(10);
    expect(Math.floor(bucket.available())).toBeLessThan(20);
  });
});

describe('providerRequest over HTTP', () => {
  let server: Server;
  let url: string;
  const script: { status: number; headers?: Record<string, string>; hang?: boolean }[] = [];
  let calls = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      calls++;
      const next = script.shift() ?? { status: 200 };
      if (next.hang) return; // never answers: the client's timeout must fire
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(JSON.stringify({ ok: next.status < 400 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('retries 429 (honouring Retry-After), 5xx and a timeout, then succeeds', async () => {
    calls = 0;
    script.push({ status: 429, headers: { 'retry-after': '0.05' } }, { status: 503 }, { status: 200, hang: true });
    const result = await providerRequest<{ ok: boolean }>({ label: 'test', url, timeoutMs: 200 });
    expect(result.body).toEqual({ ok: true });
    expect(calls).toBe(4);
  });

  it('gives up after maxRetries and does not retry a 4xx', async () => {
    calls = 0;
    script.push({ status: 500 }, { status: 500 });
    await expect(providerRequest({ label: 'test', url, maxRetries: 1 })).rejects.toBeInstanceOf(ProviderHttpError);
    expect(calls).toBe(2);
    calls = 0;
    script.push({ status: 422 });
    await expect(providerRequest({ label: 'test', url })).rejects.toMatchObject({ status: 422, retryable: false });
    expect(calls).toBe(1);
  });
});
