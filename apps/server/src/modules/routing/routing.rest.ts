import {
  AllocationIdInput,
  AllocationList,
  AllocationRow,
  AllocationUpdateResult,
  ListAllocationsInput,
  UpdateLocationOrderItemInput,
} from '@switchyard/contracts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { getAllocation, listAllocations, updateLocationOrderItem } from './routing.reroute.ts';

const tags = ['routing'];

/** SPEC §7 frontend: `shipping/listOrderItemAllocations`, `getOrderItemAllocation`, `updateLocationOrderItem`. */
export function routingFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'POST',
    url: '/shipping/listOrderItemAllocations',
    summary: "List order item allocations (an order's, a location's, or by status 0–5)",
    tags,
    input: ListAllocationsInput,
    output: AllocationList,
    handler: ({ actor, input }) => listAllocations(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/shipping/getOrderItemAllocation',
    summary: 'Get one order item allocation',
    tags,
    input: AllocationIdInput,
    output: AllocationRow,
    handler: ({ actor, input }) => getAllocation(services.db, actor, input.id),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/shipping/updateLocationOrderItem',
    summary:
      'Reassign an allocated line to a location (checked against its stock), or reject it / report it short with a reason (routed again without that store)',
    tags,
    input: UpdateLocationOrderItemInput,
    output: AllocationUpdateResult,
    handler: ({ actor, input }) => updateLocationOrderItem(services, actor, input),
  });
}
