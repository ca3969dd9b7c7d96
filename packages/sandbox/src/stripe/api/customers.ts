// Customers: create (with a payment method to attach), retrieve, update, delete (ending their subscriptions),
// list, and a customer's payment methods.

import { attachPaymentMethod, createCustomer } from '../customers.ts';
import { invalidRequest } from '../errors.ts';
import { allowOnly, child, int, metadata, str } from '../params.ts';
import { endSubscription } from '../subscriptions.ts';
import { EMAIL, LIST_PARAMS, pageOpts, subExpand, type V1Api } from './shared.ts';

export function customerRoutes({ state, route, customer }: V1Api) {
  route('POST', '/v1/customers', ({ params, expand, request }) => {
    allowOnly(params, ['email', 'name', 'description', 'phone', 'metadata', 'payment_method', 'invoice_settings']);
    const email = str(params, 'email');
    if (email && !EMAIL.test(email)) throw invalidRequest(`Invalid email address: ${email}`, 'email', 'email_invalid');
    // A payment method to attach, and which one is the default, are checked before anything is made.
    const pmId = str(params, 'payment_method');
    const pm = pmId ? state.get(state.paymentMethods, 'PaymentMethod', pmId, 'payment_method') : undefined;
    if (pm?.customer) {
      throw invalidRequest(
        'The payment method you provided has already been attached to a customer.',
        'payment_method',
        'payment_method_unexpected_state',
      );
    }
    const settings = child(params, 'invoice_settings');
    const defaultPm = settings
      ? str(settings, 'default_payment_method', 'invoice_settings[default_payment_method]')
      : undefined;
    if (defaultPm && defaultPm !== pmId) {
      throw invalidRequest(
        `The customer does not have a payment method with the ID ${defaultPm}. The payment method must be attached to the customer.`,
        'invoice_settings[default_payment_method]',
        'resource_missing',
      );
    }
    const created = createCustomer(
      state,
      {
        email: email ?? null,
        name: str(params, 'name') ?? null,
        description: str(params, 'description') ?? null,
        phone: str(params, 'phone') ?? null,
        metadata: metadata(params),
        defaultPaymentMethod: defaultPm || null,
      },
      request,
    );
    if (pm) attachPaymentMethod(state, pm, created, request);
    return state.render(created, expand);
  });
  route('GET', '/v1/customers/:id', ({ path, expand }) => {
    if (state.deletedCustomers.has(path.id as string)) return { id: path.id, object: 'customer', deleted: true };
    return state.render(customer(path.id as string, 'id'), expand);
  });
  route('POST', '/v1/customers/:id', ({ path, params, expand, request }) => {
    allowOnly(params, ['email', 'name', 'description', 'phone', 'metadata', 'invoice_settings', 'balance']);
    const c = customer(path.id as string, 'id');
    const before = structuredClone(c) as unknown as Record<string, unknown>;
    const email = str(params, 'email');
    if (email !== undefined) {
      if (email && !EMAIL.test(email))
        throw invalidRequest(`Invalid email address: ${email}`, 'email', 'email_invalid');
      c.email = email || null;
    }
    const name = str(params, 'name');
    if (name !== undefined) c.name = name || null;
    const description = str(params, 'description');
    if (description !== undefined) c.description = description || null;
    const phone = str(params, 'phone');
    if (phone !== undefined) c.phone = phone || null;
    const balance = int(params, 'balance');
    if (balance !== undefined) c.balance = balance;
    c.metadata = metadata(params, c.metadata);
    const settings = child(params, 'invoice_settings');
    if (settings) {
      const pmId = str(settings, 'default_payment_method', 'invoice_settings[default_payment_method]');
      if (pmId !== undefined) {
        if (pmId) {
          const pm = state.paymentMethods.get(pmId);
          if (!pm || pm.customer !== c.id) {
            throw invalidRequest(
              `The customer does not have a payment method with the ID ${pmId}. The payment method must be attached to the customer.`,
              'invoice_settings[default_payment_method]',
              'resource_missing',
            );
          }
        }
        c.invoice_settings.default_payment_method = pmId || null;
      }
      const footer = str(settings, 'footer', 'invoice_settings[footer]');
      if (footer !== undefined) c.invoice_settings.footer = footer || null;
    }
    const prev: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c)) if (JSON.stringify(before[k]) !== JSON.stringify(v)) prev[k] = before[k];
    if (Object.keys(prev).length) state.emit('customer.updated', c, request, prev);
    return state.render(c, expand);
  });
  route('DELETE', '/v1/customers/:id', ({ path, request }) => {
    const c = customer(path.id as string, 'id');
    for (const sub of state.subscriptions.values()) {
      if (sub.customer === c.id && sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
        endSubscription(state, sub, request);
      }
    }
    state.deletedCustomers.add(c.id);
    state.emit('customer.deleted', c, request);
    return { id: c.id, object: 'customer', deleted: true };
  });
  route('GET', '/v1/customers', ({ params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'email', 'test_clock']);
    const email = str(params, 'email');
    const items = [...state.customers.values()].filter(
      (c) => !state.deletedCustomers.has(c.id) && (email === undefined || c.email === email),
    );
    return state.page('/v1/customers', items, pageOpts(params), (c) => state.render(c, subExpand(expand)));
  });
  route('GET', '/v1/customers/:id/payment_methods', ({ path, params, expand }) => {
    allowOnly(params, [...LIST_PARAMS, 'type', 'allow_redisplay']);
    const c = customer(path.id as string, 'id');
    const type = str(params, 'type');
    const items = [...state.paymentMethods.values()].filter(
      (pm) => pm.customer === c.id && (!type || pm.type === type),
    );
    return state.page(`/v1/customers/${c.id}/payment_methods`, items, pageOpts(params), (pm) =>
      state.render(pm, subExpand(expand)),
    );
  });
}
