import type { ProviderEndpoints } from '../../providers.ts';
import { shopify } from './index.ts';

/** Test helpers: drive the sandbox's Shopify as a merchant and as the control API would. */

export const TEST_REDIRECT_URI = 'https://switchyard.example/oauth/callback/shopify';

/** The merchant's side of OAuth: open the consent page, press "Install app", land on our callback. */
export async function consent(
  endpoints: ProviderEndpoints,
  shop: string,
  state = 'state-123',
  /** What the merchant grants, when not all we ask for (a shop authorised before we asked for more). */
  scope?: string,
): Promise<Record<string, string>> {
  const url = shopify.oauth(endpoints).authorizeUrl({ shop, state, redirectUri: TEST_REDIRECT_URI });
  const page = await fetch(url);
  if (page.status !== 200) throw new Error(`consent page: ${page.status}`);
  const html = await page.text();
  if (!html.includes('Install app')) throw new Error('no Install app button');
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.set(m[1] as string, (m[2] as string).replace(/&amp;/g, '&'));
  if (scope !== undefined) form.set('scope', scope);
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] as string;
  const allow = await fetch(new URL(action, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
  if (allow.status !== 302) throw new Error(`install: ${allow.status}`);
  return Object.fromEntries(new URL(allow.headers.get('location') as string).searchParams);
}

export async function connectShop(endpoints: ProviderEndpoints, shop: string, scope?: string) {
  const authorized = await shopify
    .oauth(endpoints)
    .completeAuthorization(await consent(endpoints, shop, 'state-123', scope), TEST_REDIRECT_URI);
  return authorized.credentials;
}

export function controlApi(sandboxUrl: string) {
  const call = async (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const res = await fetch(`${sandboxUrl}/_control${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<unknown>;
  };
  return {
    call,
    snapshot: async (shop: string) =>
      (await call(`/shopify/${shop}`)) as {
        locations: { id: string; name: string }[];
        stock: Record<string, Record<string, number>>;
        variants: number;
        products: number;
        orders: number;
      },
  };
}
