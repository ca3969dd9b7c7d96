import { describe, expect, it } from 'vitest';
import { restRoute } from '../src/rest/route.ts';
import { createTestApp } from './app.ts';

describe('graceful shutdown', () => {
  it('finishes a request in flight before the server closes', async () => {
    let entered!: () => void;
    const handlerEntered = new Promise<void>((r) => {
      entered = r;
    });
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const t = await createTestApp({
      rest: {
        v1: [
          (app, services) =>
            restRoute(app, services, {
              method: 'POST',
              url: '/slow',
              access: 'public',
              handler: async () => {
                entered();
                await released;
                return { saved: true };
              },
            }),
        ],
      },
    });
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });

    const inFlight = fetch(`${address}/api/v1/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await handlerEntered;
    const closing = t.app.close();
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ saved: true });
    await closing;
    await t.services.database.close();
  });
});
