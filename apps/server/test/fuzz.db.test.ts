// Hostile input never becomes a 500 (issue 18). Every REST operation the server registers (the OpenAPI
// document's v1/v2 plus the frontend routes) and every tRPC procedure of the router is called signed in with
// generated hostile requests (fast-check, fixed seed). Nothing is listed by hand: a route or procedure added
// later is fuzzed by the next run. FUZZ_RUNS=<n> runs n requests per operation (default 10; 4 on PostgreSQL), FUZZ_SEED=<n>
// another seed.
//
// It runs on both databases of CI: the faults it hunts are PostgreSQL's own refusals (U+0000, ranges, index
// sizes), and the server run is what production uses. Kept to ~10 requests per operation so each pass stays
// well under a minute on CI's two cores (see the figures it prints).
import { randomBytes } from 'node:crypto';
import type { CreatedApiKey } from '@switchyard/contracts';
import fc from 'fast-check';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from './app.ts';
import { usingServer } from './db.ts';
import { createSignedInAccount } from './factories.ts';
import {
  type FuzzRequest,
  LEAK,
  type Operation,
  operationName,
  type Pools,
  requestsFor,
  restOperations,
  trpcOperations,
} from './fuzz.ts';
import { idTakingOperations, type World } from './isolation.ts';
import { trpcOver } from './trpc.ts';

// The PostgreSQL pass runs fewer (same seed): PGlite is PostgreSQL itself (compiled to WebAssembly), so it refuses
// the same values with the same SQLSTATEs; the server pass adds node-postgres's error shapes and the pool, which
// a few hundred requests cover (a request takes ~6 ms on PGlite, ~14 ms on PostgreSQL on CI's two cores).
const RUNS = Number(process.env.FUZZ_RUNS ?? (usingServer() ? 4 : 10));
const SEED = Number(process.env.FUZZ_SEED ?? 18);

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = World['a'];

describe('hostile input over the whole API', () => {
  const routes: RouteOptions[] = [];
  let t: TestApp;
  let world: World;
  let superuser: Awaited<ReturnType<typeof createSignedInAccount>>;
  let operations: Operation[];
  /** Ids of A's rows, one per kind (`loc_…`, `chn_…`, a buffer's number, …). */
  const ownIds: string[] = [];

  const tenant = async (): Promise<Tenant> => {
    const signed = await createSignedInAccount(t.services);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/settings/apps',
      headers: signed.headers,
      payload: { name: 'own key' },
    });
    return { ...signed, apiKeyHeaders: { authorization: `Bearer ${res.json<CreatedApiKey>().secret}` } };
  };

  beforeAll(async () => {
    t = await createTestApp({ onRoute: (route) => routes.push(route) });
    world = { t, a: await tenant(), b: await tenant() };
    superuser = await createSignedInAccount(t.services, { authorizationLevel: 'superuser', superUserRole: 'admin' });
    operations = [...restOperations(routes), ...trpcOperations()];
    // One row of each kind in A, made the way the isolation table makes them.
    const creators = [...new Set(idTakingOperations.map((op) => op.create))];
    for (const create of creators) {
      const { id } = await create(world);
      // One id per kind (its prefix, `chn_`, `loc_`…): another channel adds calls, not coverage.
      const kind = /^[a-z]+_/.exec(id)?.[0] ?? id;
      if (!ownIds.some((known) => (/^[a-z]+_/.exec(known)?.[0] ?? known) === kind)) ownIds.push(id);
    }
  });
  afterAll(() => t?.close());

  it('enumerates every operation: the OpenAPI document, the frontend routes and the tRPC router', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/json' })).json<{ paths: Record<string, object> }>();
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    const names = operations.map(operationName);
    const publicOps = names.filter((n) => /^\w+ \/api\/v[12]\//.test(n));
    expect(publicOps.sort()).toEqual(documented.sort());
    expect(names.filter((n) => n.includes(' /api/frontend/')).length).toBeGreaterThan(10);
    expect(names).toContain('trpc query users.me');
  });

  it("answers another account's ids exactly as ids that do not exist: 404, never the row", async () => {
    const b = await tenant();
    const pairs: string[] = [];
    let notFound = 0;
    let calls = 0;
    // An id of the same shape that does not exist: the prefix kept, each other letter or digit replaced by one of its kind.
    const fakeOf = (id: string) => {
      if (/^\d+$/.test(id)) return '2147480000';
      const [, prefix = '', rest = id] = /^([a-z]+_)?(.*)$/.exec(id) ?? [];
      const like = (ch: string) => {
        const kind = ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].find((k) =>
          k.includes(ch),
        );
        return kind ? (kind[(randomBytes(1)[0] ?? 0) % kind.length] ?? ch) : ch;
      };
      return `${prefix}${[...rest].map(like).join('')}`;
    };
    for (const op of operations) {
      const idParam = op.kind === 'rest' ? op.params.find((p) => /id$/i.test(p)) : undefined;
      const takesId = op.kind === 'trpc' && !!op.input?.properties && 'id' in op.input.properties;
      if (!idParam && !takesId) continue;
      for (const id of ownIds) {
        const call = (value: string) => {
          if (op.kind === 'rest') {
            const url = op.url.replace(`:${idParam}`, encodeURIComponent(value)).replace(/:\w+/g, 'x');
            return t.app.inject({
              method: op.method as never,
              url,
              headers: b.headers,
              ...(op.readsQuery ? {} : { payload: {} }),
            });
          }
          return op.type === 'query'
            ? trpcOver(t.app, b.headers).query(op.path, { id: value })
            : trpcOver(t.app, b.headers).mutation(op.path, { id: value });
        };
        const answer = async (value: string) => {
          calls++;
          const res = await call(value);
          const [status, body] = 'statusCode' in res ? [res.statusCode, res.body] : [res.status, JSON.stringify(res)];
          // The id itself may be echoed back; the rest of the answer must not depend on whose it is.
          const echoed = value.length >= 6 ? body.replaceAll(value, '<id>') : body;
          return { status, body: echoed.replace(/"req_[\w-]+"/g, '<req>') };
        };
        const theirs = await answer(id);
        if (theirs.status === 404) {
          notFound++;
          continue;
        }
        // Not 404 (an id of another kind: 400, say): then an id of the same shape that does not exist is answered alike.
        const unknown = await answer(fakeOf(id));
        if (theirs.status !== unknown.status || theirs.body !== unknown.body) {
          pairs.push(
            `${operationName(op)} ${id}: ${theirs.status}, unknown id ${unknown.status}: ${theirs.body.slice(0, 200)}`,
          );
        }
      }
    }
    console.log(`fuzz isolation: ${calls} calls, ${notFound} answered 404`);
    expect(pairs).toEqual([]);
    expect(notFound).toBeGreaterThan(ownIds.length);
  });

  it('answers every generated request without a 5xx, a stack or SQL, and stays healthy', {
    timeout: 300_000,
  }, async () => {
    const started = Date.now();
    const byStatus: Record<number, number> = {};
    const failures: string[] = [];
    let requests = 0;
    let renewed = 0;
    const pools: Pools = { ids: [...ownIds, 'loc_0000000000', '2147483647', '-1'] };

    const slowest: { ms: number; what: string }[] = [];
    const send = async (req: FuzzRequest, headers: Record<string, string>) => {
      requests++;
      const sent = performance.now();
      const res = await t.app.inject({ ...req, headers: { ...req.headers, ...headers } } as never);
      const ms = performance.now() - sent;
      if (ms > 200)
        slowest.push({ ms: Math.round(ms), what: `${req.method} ${req.url.slice(0, 80)} ${res.statusCode}` });
      byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
      return res;
    };
    const problemOf = (res: { statusCode: number; body: string }) => {
      const notImplemented = res.statusCode === 501 && res.body.includes('Not implemented');
      if (res.statusCode >= 500 && !notImplemented) return `answered ${res.statusCode}: ${res.body.slice(0, 300)}`;
      const leak = LEAK.exec(res.body);
      if (leak) return `leaked "${leak[0]}": ${res.body.slice(0, 300)}`;
      return undefined;
    };
    const stillSignedIn = async (headers: Record<string, string>) =>
      (await trpcOver(t.app, headers).query('users.me')).status === 200;

    for (const [index, op] of operations.entries()) {
      let needsSuperuser = false;
      const run = (headers: () => Record<string, string>) =>
        fc.check(
          fc.asyncProperty(requestsFor(op, pools), async (req) => {
            const res = await send(req, headers());
            if (res.body.includes('This needs a super')) needsSuperuser = true;
            const problem = problemOf(res);
            if (problem)
              throw new Error(
                `${req.method} ${req.url.slice(0, 200)} ${req.payload?.slice(0, 200) ?? ''}\n  ${problem}`,
              );
          }),
          { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
        );
      let details = await run(() => world.a.headers);
      // Superuser-only operations refuse A before reading input; a superuser's calls reach it.
      if (!details.failed && needsSuperuser) details = await run(() => superuser.headers);
      if (details.failed) {
        failures.push(
          `${operationName(op)}: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
        );
      }
      // An operation that signs out, changes the password or closes the account ends the session: sign in anew.
      if (!(await stillSignedIn(world.a.headers))) {
        world.a = await tenant();
        renewed++;
      }
      if (!(await stillSignedIn(superuser.headers))) {
        superuser = await createSignedInAccount(t.services, {
          authorizationLevel: 'superuser',
          superUserRole: 'admin',
        });
        renewed++;
      }
    }

    const rest = operations.filter((op) => op.kind === 'rest').length;
    console.log(
      `fuzz: ${operations.length} operations (${rest} REST, ${operations.length - rest} tRPC), ${requests} requests, ` +
        `${RUNS} runs each, seed ${SEED}, ${((Date.now() - started) / 1000).toFixed(1)} s, sessions renewed ${renewed}; ` +
        `by status ${JSON.stringify(byStatus)}`,
    );
    slowest.sort((x, y) => y.ms - x.ms);
    if (slowest.length) console.log(`fuzz: slowest ${JSON.stringify(slowest.slice(0, 8))}`);
    expect(failures).toEqual([]);

    // Healthy after the run: probes answer, a new account signs in and reads, nothing unexpected was logged.
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const fresh = await createSignedInAccount(t.services);
    expect(await stillSignedIn(fresh.headers)).toBe(true);
    expect(t.logs.filter((line) => line.msg === 'unexpected error')).toEqual([]);
  });
});
