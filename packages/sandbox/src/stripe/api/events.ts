// Events: one by id and the list (by type, or a type's prefix with .*), each with its delivery state.

import { allowOnly, str, strList } from '../params.ts';
import { LIST_PARAMS, pageOpts, type V1Api } from './shared.ts';

export function eventRoutes({ state, route }: V1Api) {
  route('GET', '/v1/events/:id', ({ path }) =>
    state.render(state.withDeliveryState(state.get(state.events, 'event', path.id as string))),
  );
  route('GET', '/v1/events', ({ params }) => {
    allowOnly(params, [...LIST_PARAMS, 'type', 'types', 'delivery_success']);
    const type = str(params, 'type');
    const types = strList(params, 'types');
    const matches = (t: string) => {
      if (type) return type.endsWith('.*') ? t.startsWith(type.slice(0, -1)) : t === type;
      if (types) return types.includes(t);
      return true;
    };
    const items = state.eventList().filter((e) => matches(e.type));
    return state.page('/v1/events', items, pageOpts(params), (e) => state.render(state.withDeliveryState(e)));
  });
}
