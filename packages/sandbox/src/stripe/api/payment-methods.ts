// Payment methods (retrieve, list, attach, detach), and payment intents and charges read by id.

import { attachPaymentMethod } from '../customers.ts';
import { invalidRequest } from '../errors.ts';
import { allowOnly, reqStr, str } from '../params.ts';
import { LIST_PARAMS, pageOpts, subExpand, type V1Api } from './shared.ts';

export function paymentMethodRoutes({ state, route, customer }: V1Api) {
  route('GET', '/v1/payment_methods/:id', ({ path, expand }) =>
    state.render(state.get(state.paymentMethods, 'PaymentMethod', path.id as string), expand),
  );
  route('GET', '/v1/payment_methods', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'customer', 'type', 'allow_redisplay']);
    const customerId = str(params, 'customer');
    if (customerId) customer(customerId);
    const type = str(params, 'type');
    const items = [...state.paymentMethods.values()].filter(
      (pm) => (!customerId || pm.customer === customerId) && (!type || pm.type === type) && pm.customer !== null,
    );
    return state.page('/v1/payment_methods', items, pageOpts(params), (pm) => state.render(pm, subExpand(expand)));
  });
  route('POST', '/v1/payment_methods/:id/attach', ({ path, params, expand, request }) => {
    allowOnly(params, ['customer']);
    const pm = state.get(state.paymentMethods, 'PaymentMethod', path.id as string);
    const c = customer(reqStr(params, 'customer'));
    attachPaymentMethod(state, pm, c, request);
    return state.render(pm, expand);
  });
  route('POST', '/v1/payment_methods/:id/detach', ({ path, expand, request }) => {
    const pm = state.get(state.paymentMethods, 'PaymentMethod', path.id as string);
    if (!pm.customer) {
      throw invalidRequest(
        'The payment method you provided is not attached to a customer so detachment is impossible.',
        undefined,
        'payment_method_unexpected_state',
      );
    }
    const c = state.customers.get(pm.customer);
    if (c && c.invoice_settings.default_payment_method === pm.id) c.invoice_settings.default_payment_method = null;
    for (const s of state.subscriptions.values())
      if (s.default_payment_method === pm.id) s.default_payment_method = null;
    pm.customer = null;
    state.emit('payment_method.detached', pm, request, { customer: c?.id ?? null });
    return state.render(pm, expand);
  });
  route('GET', '/v1/payment_intents/:id', ({ path, expand }) =>
    state.render(state.get(state.paymentIntents, 'payment_intent', path.id as string), expand),
  );
  route('GET', '/v1/charges/:id', ({ path, expand }) =>
    state.render(state.get(state.charges, 'charge', path.id as string), expand),
  );
}
