import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inLane } from '../lib/lanes.ts';
import {
  BACKGROUND_PATIENCE_MS,
  backoffMs,
  ProviderHttpError,
  parseRetryAfter,
  providerRequest,
  TokenBucket,
} from './http.ts';

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

  it('lets a waiting caller go as soon as the provider says there is enough, not when its old estimate ends', async () => {
    const bucket = new TokenBucket(1000, 50);
    bucket.observe(0);
    const started = Date.now();
    // 700 points at 50 a second: 14 s by what we believed.
    const waiting = bucket.acquire(700);
    await new Promise((r) => setTimeout(r, 20));
    // An answer to another call: the shop's plan was raised.
    bucket.observe(999_000, 1_000_000, 1_000_000);
    await waiting;
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('still waits when what the provider says is not enough', async () => {
    const bucket = new TokenBucket(100, 1000);
    bucket.observe(0);
    const started = Date.now();
    const waiting = bucket.acquire(60);
    await new Promise((r) => setTimeout(r, 5));
    bucket.observe(0);
    await waiting;
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('lets a foreground call go before a background one that waits for most of the bucket', async () => {
    const bucket = new TokenBucket(1000, 50);
    bucket.observe(0);
    const started = Date.now();
    const order: string[] = [];
    // A reconciliation page: 700 points, 14 s at 50 a second.
    const page = inLane('background', () => bucket.acquire(700)).then(() => order.push('page'));
    await new Promise((r) => setTimeout(r, 20));
    // An order webhook's read: 10 points, 0.2 s.
    await bucket.acquire(10).then(() => order.push('read'));
    expect(order).toEqual(['read']);
    expect(Date.now() - started).toBeLessThan(1000);
    bucket.observe(1000);
    await page;
    expect(order).toEqual(['read', 'page']);
  });

  it('keeps arrival order within a lane, and a background call out of patience takes its turn', async () => {
    const bucket = new TokenBucket(100, 1000);
    bucket.observe(0);
    const order: string[] = [];
    const calls = [
      inLane('background', () => bucket.acquire(50)).then(() => order.push('b1')),
      bucket.acquire(20).then(() => order.push('f1')),
      inLane('background', () => bucket.acquire(10)).then(() => order.push('b2')),
      bucket.acquire(20).then(() => order.push('f2')),
    ];
    await Promise.all(calls);
    expect(order).toEqual(['f1', 'f2', 'b1', 'b2']);
  });

  it('holds a read that can wait until a third of the budget is left over, and takes nothing for it', async () => {
    const bucket = new TokenBucket(150, 0.001);
    bucket.observe(10);
    let ready = false;
    const waiting = inLane('background', () => bucket.whenAvailable(50)).then(() => {
      ready = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    // Foreground calls still go meanwhile.
    await bucket.acquire(5);
    expect(ready).toBe(false);
    bucket.observe(40);
    await new Promise((r) => setTimeout(r, 20));
    expect(ready).toBe(false);
    bucket.observe(60);
    await waiting;
    expect(Math.floor(bucket.available())).toBe(60);
  });

  it('does not starve a background call under a steady stream of foreground ones', async () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const bucket = new TokenBucket(100, 1);
      bucket.observe(0);
      let pageAt: number | null = null;
      void inLane('background', () => bucket.acquire(100)).then(() => {
        pageAt = Date.now();
      });
      // One foreground call a second takes each second's refill.
      for (let s = 0; s < 200 && pageAt === null; s++) {
        void bucket.acquire(1);
        await vi.advanceTimersByTimeAsync(1000);
      }
      expect(pageAt).not.toBeNull();
      expect(pageAt as unknown as number).toBeGreaterThanOrEqual(BACKGROUND_PATIENCE_MS);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails its waiting callers at once when the process stops, and serves later ones', async () => {
    const bucket = new TokenBucket(100, 0.001);
    bucket.observe(0);
    const waiting = bucket.acquire(50);
    bucket.failWaiting(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    bucket.observe(100);
    await bucket.acquire(50);
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
