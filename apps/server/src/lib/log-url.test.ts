import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../bootstrap.ts';
import { loadConfig } from '../config.ts';
import { loggableUrl } from './log-url.ts';

describe('what a request log says of an address', () => {
  it('hides the codes of reset and confirmation links', () => {
    expect(loggableUrl('/reset/k3Jd9sQ')).toBe('/reset/[redacted]');
    expect(loggableUrl('/confirm/k3Jd9sQ?from=mail')).toBe('/confirm/[redacted]?from=mail');
    expect(loggableUrl('/reset/')).toBe('/reset/');
    expect(loggableUrl('/api/frontend/orders/ord_1')).toBe('/api/frontend/orders/ord_1');
  });

  it('hides the secrets of a query and keeps the rest', () => {
    expect(loggableUrl('/oauth/callback/shopify?code=abc&shop=a.myshopify.com&state=xyz&hmac=ff&timestamp=1')).toBe(
      '/oauth/callback/shopify?code=[redacted]&shop=a.myshopify.com&state=[redacted]&hmac=[redacted]&timestamp=1',
    );
    expect(loggableUrl('/webhooks/bigcommerce/uninstall?signed_payload_jwt=eyJ.x.y')).toBe(
      '/webhooks/bigcommerce/uninstall?signed_payload_jwt=[redacted]',
    );
    expect(loggableUrl('/x?Code=1&%63ode=2&search=code')).toBe('/x?Code=[redacted]&%63ode=[redacted]&search=code');
    // A confirmation code checked by a tRPC query travels in its input; other procedures' inputs are kept.
    expect(loggableUrl('/api/trpc/auth.checkConfirmationCode?input=%7B%22code%22%3A%22k3J%22%7D')).toBe(
      '/api/trpc/auth.checkConfirmationCode?input=[redacted]',
    );
    expect(loggableUrl('/api/trpc/orders.list,auth.checkConfirmationCode?batch=1&input=x')).toBe(
      '/api/trpc/orders.list,auth.checkConfirmationCode?batch=1&input=[redacted]',
    );
    expect(loggableUrl('/api/trpc/orders.list?input=%7B%7D')).toBe('/api/trpc/orders.list?input=%7B%7D');
  });

  it('is what the server’s log writes for each request', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger(loadConfig({ LOG_LEVEL: 'info' }), destination);
    const app = Fastify({ loggerInstance: logger });
    app.get('/reset/:code', async () => 'ok');
    await app.inject({ url: '/reset/k3Jd9sQ?state=s1', headers: { authorization: 'Bearer abc.def.ghi' } });
    logger.info({ credentials: { accessToken: 'shpat_123' } }, 'a channel');
    await app.close();
    const incoming = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'incoming request');
    expect(incoming.req).toMatchObject({ method: 'GET', url: '/reset/[redacted]?state=[redacted]' });
    expect(lines.join('')).not.toMatch(/k3Jd9sQ|shpat_123|abc\.def/);
  });
});
