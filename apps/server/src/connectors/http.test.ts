import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inLane } from '../lib/lanes.ts';
import {
  BACKGROUND_PATIENCE_MS,
  backoffMs,
  ProviderHttpError,
  type ProviderResponse,
  parseRetryAfter,
  providerRequest,
  providerTransport,
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

describe('the transport (node:http on kept-alive connections)', () => {
  let server: Server;
  let url: string;
  let handle: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_req, res) => res.end();
  const connections: Socket[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    server.on('connection', (socket) => connections.push(socket));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/path?q=1`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('sends the method, the headers and a JSON body, and reads a JSON answer', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    handle = (req, res, body) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":7}');
    };
    const result = await providerRequest({
      label: 'test',
      url,
      method: 'POST',
      headers: { 'X-Token': 'secret' },
      body: { name: 'é' },
    });
    expect(result).toMatchObject({ status: 201, body: { id: 7 } });
    expect(seen).toMatchObject({ method: 'POST', url: '/path?q=1', body: '{"name":"é"}' });
    expect(seen.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength('{"name":"é"}')),
      'x-token': 'secret',
    });
    // A string body goes as it is, under the caller's content type whatever the case of its name.
    await providerRequest({
      label: 'test',
      url,
      method: 'PUT',
      headers: { 'Content-Type': 'text/plain' },
      body: 'a=1',
    });
    expect(seen).toMatchObject({ method: 'PUT', body: 'a=1', headers: { 'content-type': 'text/plain' } });
  });

  it('reads an answer that is not JSON as text, and an empty one as null', async () => {
    handle = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('\uFEFFplain words');
    expect((await providerRequest({ label: 'test', url })).body).toBe('plain words');
    handle = (_req, res) => res.writeHead(204).end();
    expect((await providerRequest({ label: 'test', url })).body).toBeNull();
  });

  it('decodes a gzipped answer', async () => {
    handle = (_req, res) =>
      res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.from('{"zipped":true}')));
    expect((await providerRequest({ label: 'test', url })).body).toEqual({ zipped: true });
  });

  it('reads headers by any case, joining repeated ones with ", " as fetch does', async () => {
    handle = (_req, res) => {
      res.setHeader('X-Rate-Limit-Requests-Left', '5');
      res.setHeader('X-Multi', ['a', 'b']);
      res.setHeader('Set-Cookie', ['c=1', 'd=2']);
      res.end('{}');
    };
    let observed: ProviderResponse | undefined;
    const result = await providerRequest({
      label: 'test',
      url,
      observe: (res) => {
        observed = res;
      },
    });
    for (const headers of [result.headers, observed?.headers]) {
      expect(headers?.get('x-rate-limit-requests-left')).toBe('5');
      expect(headers?.get('X-RATE-LIMIT-REQUESTS-LEFT')).toBe('5');
      expect(headers?.has('X-Rate-Limit-Requests-Left')).toBe(true);
      expect(headers?.get('x-multi')).toBe('a, b');
      expect(headers?.get('set-cookie')).toBe('c=1, d=2');
      expect(headers?.get('x-absent')).toBeNull();
      expect(headers?.has('x-absent')).toBe(false);
    }
    expect(observed).toMatchObject({ status: 200, ok: true });
  });

  it('times out a whole attempt, retries it, and reports the timeout when retries run out', async () => {
    let calls = 0;
    handle = (_req, res) => {
      calls++;
      // The headers come at once; the body never ends: the timeout covers reading it too.
      if (calls === 1) res.writeHead(200, { 'content-type': 'application/json' }).write('{"par');
      else res.end('{"ok":true}');
    };
    const uncertain = vi.fn();
    const started = Date.now();
    const result = await providerRequest({ label: 'test', url, timeoutMs: 150, onUncertain: uncertain });
    expect(result.body).toEqual({ ok: true });
    expect(calls).toBe(2);
    expect(uncertain).toHaveBeenCalledTimes(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);

    handle = () => {}; // never answers
    await expect(providerRequest({ label: 'test', url, timeoutMs: 100, maxRetries: 0 })).rejects.toMatchObject({
      message: 'test: timed out after 100 ms',
      status: null,
      retryable: true,
    });
  });

  it('reports a dropped connection as a network error and retries it', async () => {
    let calls = 0;
    handle = (req, res) => {
      calls++;
      if (calls === 1) req.socket.destroy();
      else if (calls === 2) {
        // Dropped halfway through the body.
        res.writeHead(200, { 'content-length': '100' }).write('{"half":');
        setTimeout(() => req.socket.destroy(), 10);
      } else res.end('{"ok":true}');
    };
    const uncertain = vi.fn();
    const result = await providerRequest({ label: 'test', url, onUncertain: uncertain });
    expect(result.body).toEqual({ ok: true });
    expect(calls).toBe(3);
    expect(uncertain).toHaveBeenCalledTimes(2);

    handle = (req) => req.socket.destroy();
    await expect(providerRequest({ label: 'test', url, maxRetries: 0 })).rejects.toMatchObject({
      message: expect.stringMatching(/^test: network error: /),
      status: null,
      retryable: true,
    });
    // Nothing listens there any more: refused, a network error too.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(
      providerRequest({ label: 'test', url: `http://127.0.0.1:${port}/`, maxRetries: 0 }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/^test: network error: .*ECONNREFUSED/) });
  });

  it('waits what a 429’s Retry-After asks before trying again', async () => {
    const at: number[] = [];
    handle = (_req, res) => {
      at.push(Date.now());
      if (at.length === 1) res.writeHead(429, { 'retry-after': '0.3' }).end('{}');
      else res.end('{"ok":true}');
    };
    const uncertain = vi.fn();
    const result = await providerRequest({ label: 'test', url, onUncertain: uncertain });
    expect(result.body).toEqual({ ok: true });
    expect(at).toHaveLength(2);
    expect((at[1] as number) - (at[0] as number)).toBeGreaterThanOrEqual(290);
    // A 429 was not applied: nothing uncertain about it.
    expect(uncertain).not.toHaveBeenCalled();
  });

  it('does not follow a redirect', async () => {
    let calls = 0;
    handle = (_req, res) => {
      calls++;
      res.writeHead(302, { location: '/elsewhere' }).end();
    };
    await expect(providerRequest({ label: 'test', url })).rejects.toMatchObject({ status: 302, retryable: false });
    expect(calls).toBe(1);
  });

  it('sends one call after another on one kept-alive connection', async () => {
    handle = (_req, res) => res.end('{}');
    // A connection of its own first (the ones before may have been dropped by the tests above).
    await providerRequest({ label: 'test', url });
    const before = connections.length;
    for (let i = 0; i < 5; i++) await providerRequest({ label: 'test', url, method: i % 2 ? 'POST' : 'GET', body: {} });
    expect(connections.length).toBe(before);
  });

  it('lets a test observe and alter what is sent', async () => {
    handle = (_req, res) => res.end('{"from":"server"}');
    const spy = vi.spyOn(providerTransport, 'send');
    await providerRequest({ label: 'test', url, method: 'POST', body: { a: 1 } });
    expect(spy.mock.calls[0]?.[0]).toBe(url);
    expect(spy.mock.calls[0]?.[1]).toMatchObject({ method: 'POST', body: '{"a":1}' });
    spy.mockRestore();
  });
});
