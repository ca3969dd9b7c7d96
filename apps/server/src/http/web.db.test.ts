import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/app.ts';
import { readBuildId } from './web.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

describe('serving the web app', () => {
  let dist: string;
  let t: TestApp;
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'sy-web-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(
      join(dist, 'index.html'),
      '<!doctype html><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>',
    );
    writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(dist, 'build.json'), JSON.stringify({ buildId: 'b-77' }));
    t = await createTestApp({ env: { WEB_DIST: dist } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('reads the build id the web app was built with', () => {
    expect(readBuildId(dist)).toBe('b-77');
    expect(readBuildId('/nonexistent')).toBeUndefined();
  });

  it('serves hashed assets as immutable and index.html uncached', async () => {
    const asset = await t.app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const index = await t.app.inject({ url: '/' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.body).toContain('<div id="root">');
  });

  it('falls back to index.html for client routes but not for missing assets or the API', async () => {
    for (const url of ['/dashboard', '/orders/42?status=1', '/_app/dashboard/']) {
      const res = await t.app.inject({ url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<div id="root">');
    }
    const asset = await t.app.inject({ url: '/assets/gone-123.js' });
    expect(asset.statusCode).toBe(404);
    const api = await t.app.inject({ url: '/api/v1/unknown' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ code: 404 });
  });
});
