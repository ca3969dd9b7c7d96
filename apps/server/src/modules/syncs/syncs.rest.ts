import { SyncDetail, SyncGetInput, SyncList, SyncsListInput } from '@switchyard/contracts';
import { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { getSync, listSyncs } from './syncs.service.ts';

const IdParams = z.object({ id: z.string().min(1).max(20) });

/** SPEC §7 frontend `GET syncs` and `GET syncs/{id}`, over the same service as tRPC `syncs.list` / `syncs.get`. */
export function syncsFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/syncs',
    input: SyncsListInput,
    output: SyncList,
    handler: ({ actor, input }) => listSyncs(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/syncs/:id',
    params: IdParams,
    input: SyncGetInput.omit({ id: true }),
    output: SyncDetail,
    handler: ({ actor, params, input }) => {
      // An id that is not a run number is a run that does not exist.
      const id = Number(params.id);
      if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError('NOT_FOUND', 'Sync not found');
      return getSync(services.db, actor, { ...input, id });
    },
  });
}
