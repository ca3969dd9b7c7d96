// Customer portal sessions: the portal's home page, or its payment-method update flow (flow_data).

import { invalidRequest, missingParam } from '../errors.ts';
import { allowOnly, child, oneOf, reqStr, str } from '../params.ts';
import { nowSeconds } from '../state.ts';
import type { PortalSession } from '../types.ts';
import type { V1Api } from './shared.ts';

export function portalRoutes({ state, route, customer }: V1Api) {
  route('POST', '/v1/billing_portal/sessions', ({ params, expand }) => {
    allowOnly(params, ['customer', 'return_url', 'configuration', 'locale', 'flow_data', 'on_behalf_of']);
    const c = customer(reqStr(params, 'customer'));
    const returnUrl = str(params, 'return_url') || null;
    if (returnUrl && !/^https?:\/\/./.test(returnUrl))
      throw invalidRequest('Not a valid URL', 'return_url', 'url_invalid');
    const flowData = child(params, 'flow_data');
    let flow: PortalSession['flow'] = null;
    if (flowData) {
      const type = oneOf(
        flowData,
        'type',
        ['payment_method_update', 'subscription_cancel', 'subscription_update', 'subscription_update_confirm'] as const,
        'flow_data[type]',
      );
      if (!type) throw missingParam('flow_data[type]');
      if (type !== 'payment_method_update') {
        throw invalidRequest(
          `The sandbox portal supports flow_data[type]=payment_method_update only.`,
          'flow_data[type]',
        );
      }
      const after = child(flowData, 'after_completion', 'flow_data[after_completion]');
      const afterType = after
        ? oneOf(
            after,
            'type',
            ['portal_homepage', 'redirect', 'hosted_confirmation'] as const,
            'flow_data[after_completion][type]',
          )
        : undefined;
      const redirect = after ? child(after, 'redirect', 'flow_data[after_completion][redirect]') : undefined;
      const redirectUrl = redirect
        ? str(redirect, 'return_url', 'flow_data[after_completion][redirect][return_url]')
        : undefined;
      if (afterType === 'redirect' && !redirectUrl)
        throw missingParam('flow_data[after_completion][redirect][return_url]');
      flow = {
        type,
        after_completion: {
          type: afterType === 'redirect' ? 'redirect' : 'portal_homepage',
          hosted_confirmation: null,
          redirect: afterType === 'redirect' && redirectUrl ? { return_url: redirectUrl } : null,
        },
        payment_method_update: {},
        subscription_cancel: null,
        subscription_update: null,
        subscription_update_confirm: null,
      };
    }
    const id = state.newId('bps');
    const portal: PortalSession = {
      id,
      object: 'billing_portal.session',
      configuration: 'bpc_sandboxdefault',
      created: nowSeconds(),
      customer: c.id,
      customer_account: null,
      flow,
      livemode: false,
      locale: str(params, 'locale') || null,
      on_behalf_of: null,
      return_url: returnUrl,
      url: `${state.ctx.url()}/stripe/portal/${id}${flow ? '/payment-method' : ''}`,
    };
    state.portalSessions.set(id, portal);
    return state.render(portal, expand);
  });
}
