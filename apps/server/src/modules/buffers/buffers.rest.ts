import {
  Buffer,
  BufferDeleted,
  BufferIdInput,
  BufferInput,
  BufferList,
  BufferPatch,
  BuffersSearch,
} from '@switchyard/contracts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { createBuffer, deleteBuffer, getBuffer, listBuffers, updateBuffer } from './buffers.service.ts';

const tags = ['buffers'];
const idOf = (params: Record<string, string>) => BufferIdInput.parse(params).id;

/** SPEC §7 v1 (and v2) `buffers`: dynamic buffers, stock held back from a channel. */
export function buffersRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/buffers',
    summary: 'List dynamic buffers (sort, filter by channel or SKU, search SKU or location)',
    tags,
    input: BuffersSearch,
    output: BufferList,
    handler: ({ actor, input }) => listBuffers(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/buffers/:id',
    summary: 'Get a dynamic buffer',
    tags,
    params: BufferIdInput,
    output: Buffer,
    handler: ({ actor, params }) => getBuffer(services.db, actor, idOf(params)),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/buffers',
    summary: 'Hold back stock of a SKU at a location from a channel',
    tags,
    input: BufferInput,
    output: Buffer,
    handler: async ({ actor, input, reply }) => {
      const created = await createBuffer(services, actor, input);
      reply.status(201);
      return created;
    },
  });
  restRoute(app, services, {
    method: 'PATCH',
    url: '/buffers/:id',
    summary: 'Change a dynamic buffer',
    tags,
    params: BufferIdInput,
    input: BufferPatch,
    output: Buffer,
    handler: ({ actor, params, input }) => updateBuffer(services, actor, idOf(params), input),
  });
  restRoute(app, services, {
    method: 'DELETE',
    url: '/buffers/:id',
    summary: 'Remove a dynamic buffer (the channel is offered the held-back stock again)',
    tags,
    params: BufferIdInput,
    output: BufferDeleted,
    handler: ({ actor, params }) => deleteBuffer(services, actor, idOf(params)),
  });
}
