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
    const out = await app.inject({
      method: req.method as 'POST',
      url: req.url ?? '/',
      headers: headers as Record<string, string>,
      payload: body,
    });
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
