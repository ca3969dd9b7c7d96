import type { CreatedApiKey } from '@switchyard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from './app.ts';
import { createSignedInAccount } from './factories.ts';
import { idTakingOperations, ownRowOperations, type World } from './isolation.ts';

describe('tenant isolation', () => {
  let world: World;

  beforeAll(async () => {
    const t = await createTestApp();
    const tenant = async () => {
      const signed = await createSignedInAccount(t.services);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/settings/apps',
        headers: signed.headers,
        payload: { name: 'own key' },
      });
      const { secret } = res.json<CreatedApiKey>();
      return { ...signed, apiKeyHeaders: { authorization: `Bearer ${secret}` } };
    };
    world = { t, a: await tenant(), b: await tenant() };
  });
  afterAll(() => world.t.close());

  it.each(idTakingOperations)("$name refuses another account's id with 404 and no data", async (op) => {
    const { id, marker } = await op.create(world);
    expect(id).not.toBe('');
    const outcome = await op.attempt(world, id);
    expect(outcome.status, outcome.body).toBe(404);
    expect(outcome.body).not.toContain(marker);
    await op.intact?.(world, id, marker);
  });

  it.each(ownRowOperations)('$name', async (op) => {
    await op.run(world);
  });
});
