import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface RelayedRequest {
  method: string;
  url: string;
  /** As sent, less host and content-length, so a test can replay them with another body. */
  headers: IncomingHttpHeaders;
  body: Buffer;
  status: number;
}

/**
 * A real HTTP address for an app that tests drive with inject(): what a provider (the sandbox) posts to it
 * is recorded byte for byte and handed to the app. Start it before the app, so its URL can be the app's
 * PUBLIC_URL (webhook subscriptions, Square's signed URL), then `attach` the app.
 */
export async function startRelay() {
  let app: FastifyInstance | undefined;
  const received: RelayedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (!app) {
      res.writeHead(503).end();
      return;
    }
    const { host: _host, 'content-length': _length, ...headers } = req.headers;
    const out = await app
      .inject({
        method: req.method as 'POST',
        url: req.url ?? '/',
        headers: headers as Record<string, string>,
        payload: body,
      })
      .catch(() => null);
    // A delivery that comes in as the app closes (a simulator's late webhook at a test's end) is refused, as a
    // stopped server would: the sandbox retries or drops it, and nothing rejects unhandled here.
    if (!out) {
      res.writeHead(503).end();
      return;
    }
    received.push({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers,
      body,
      status: out.statusCode,
    });
    res.writeHead(out.statusCode, { 'content-type': String(out.headers['content-type'] ?? 'text/plain') });
    res.end(out.rawPayload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    attach(target: FastifyInstance) {
      app = target;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The relay that holds back: each webhook the sandbox posts is handed to the app, or, while it matches what is
 * held, answered 200 and kept until released, so a test makes each arrival order on purpose.
 */
export interface Relayed {
  /** From the path the sandbox posts to: /webhooks/{provider}. */
  provider: string;
  /** Shopify's X-Shopify-Topic, else the body's scope or type (BigCommerce, Square). */
  topic: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export async function startHoldingRelay() {
  let app: FastifyInstance | undefined;
  let hold: ((r: Relayed) => boolean) | null = null;
  const kept: Relayed[] = [];
  const received: Relayed[] = [];
  const hand = (r: Relayed) =>
    (app as FastifyInstance).inject({
      method: 'POST',
      url: r.url,
      headers: r.headers as Record<string, string>,
      payload: r.body,
    });
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (!app) {
      res.writeHead(503).end();
      return;
    }
    const { host: _host, 'content-length': _length, ...headers } = req.headers;
    const provider = (req.url ?? '').split('?')[0]?.split('/')[2] ?? '';
    let topic = String(headers['x-shopify-topic'] ?? '');
    if (!topic) {
      try {
        const json = JSON.parse(body.toString('utf8')) as { scope?: string; type?: string };
        topic = json.scope ?? json.type ?? '';
      } catch {}
    }
    const relayed: Relayed = { provider, topic, url: req.url ?? '/', headers, body };
    received.push(relayed);
    if (hold?.(relayed)) {
      kept.push(relayed);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      return;
    }
    const out = await hand(relayed).catch(() => null);
    if (!out) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(out.statusCode, { 'content-type': String(out.headers['content-type'] ?? 'text/plain') });
    res.end(out.rawPayload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    kept,
    attach(target: FastifyInstance) {
      app = target;
    },
    /** Keeps what matches (answered 200) until released; null holds nothing. */
    hold(which: ((r: Relayed) => boolean) | null) {
      hold = which;
    },
    /**
     * Hands the kept deliveries that match (all by default) to the app, one after the other in the order they
     * came, and answers their status codes. Holding goes on for what comes later unless `hold(null)`.
     */
    async release(which: (r: Relayed) => boolean = () => true) {
      const out: number[] = [];
      for (const r of kept.filter(which)) {
        kept.splice(kept.indexOf(r), 1);
        out.push((await hand(r)).statusCode);
      }
      return out;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
