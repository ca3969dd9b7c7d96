import { ReturnList, ReturnsListInput } from '@switchyard/contracts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { listReturns } from './returns.service.ts';

/** SPEC §7 v2: `GET returns` (external_id, limit, offset) → { results, total }. */
export function returnsRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/returns',
    summary: "List returns, newest first (external_id finds a return's or its order's id)",
    tags: ['returns'],
    input: ReturnsListInput,
    output: ReturnList,
    handler: ({ actor, input }) => listReturns(services.db, actor, input),
  });
}
