// Stopping the HTTP app while a request is in flight on a keep-alive connection: it is answered, and the stop
// does not wait for the connection's keep-alive timeout.
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { closeHttp } from './shutdown.ts';

it('answers the request in flight, then closes its keep-alive connection at once', async () => {
  const app = Fastify({ keepAliveTimeout: 60_000 });
  app.get('/slow', async () => {
    await new Promise((r) => setTimeout(r, 300));
    return { ok: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/slow', agent }, (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
  await new Promise((r) => setTimeout(r, 100));
  const started = performance.now();
  await closeHttp(app);
  const took = performance.now() - started;
  expect(await answer).toEqual({ status: 200, body: '{"ok":true}' });
  // The answer took about 200 ms more; the keep-alive timeout would have held the stop for 60 s.
  expect(took).toBeLessThan(5_000);
  agent.destroy();
});
