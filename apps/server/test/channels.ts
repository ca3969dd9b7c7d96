// Connects sandbox channels for server tests the way a merchant does: create the channel, open the
// provider's consent page, approve it, and hand the callback's query to process-oauth. Shared by the
// catalog, inventory, sync and export tests.
import type { ChannelDetail, ChannelSummary, ChannelType, ProcessOauthResult } from '@switchyard/contracts';
import type { createTestApp } from './app.ts';
import type { createSignedInAccount } from './factories.ts';
import { trpcOver } from './trpc.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

const decode = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? e,
  );
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\b${name}="([^"]*)"`).exec(tag);
  return m ? decode(m[1] as string) : undefined;
};

/**
 * Opens a consent page, submits its form with the approving button (and `extra` fields, e.g. Square's
 * business name), and answers the query the provider sends the browser back with.
 */
export async function approveConsent(url: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const page = await fetch(url);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${html.slice(0, 300)}`);
  const form = /<form[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) throw new Error(`no consent form: ${html.slice(0, 300)}`);
  const [formTag] = /<form[^>]*>/i.exec(form[0]) ?? [''];
  const fields = new URLSearchParams();
  for (const [input] of (form[1] ?? '').matchAll(/<input[^>]*>/gi)) {
    const name = attr(input, 'name');
    if (name && attr(input, 'type') === 'hidden') fields.append(name, attr(input, 'value') ?? '');
  }
  for (const [k, v] of Object.entries(extra)) fields.set(k, v);
  const button = /<button[^>]*>/i.exec(form[1] ?? '')?.[0] ?? '';
  const buttonName = attr(button, 'name');
  if (buttonName) fields.append(buttonName, attr(button, 'value') ?? '');
  const action = new URL(attr(formTag, 'action') ?? '', page.url);
  const res = await fetch(action, { method: 'POST', body: fields, redirect: 'manual' });
  if (res.status !== 302) throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  return Object.fromEntries(new URL(res.headers.get('location') ?? '').searchParams);
}

/**
 * Connects the sandbox shop `shop` of `provider` to the tenant's account and answers the channel. A shop
 * feeds one live channel at a time, so tests in one sandbox use a shop name of their own. For Square,
 * `shop` is the business name (its merchant id is derived from it).
 */
export async function connectSandboxChannel(
  t: TestApp,
  tenant: Tenant,
  provider: ChannelType,
  shop: string,
): Promise<ChannelDetail> {
  const post = async (url: string, payload: Record<string, unknown>) => {
    const res = await t.app.inject({ method: 'POST', url, headers: tenant.headers, payload });
    if (res.statusCode >= 300) throw new Error(`${url} answered ${res.statusCode}: ${res.body}`);
    return res;
  };
  let query: Record<string, string>;
  if (provider === 'square') {
    const start = await post('/api/v1/oauth/square/generate-redirect-url', { store: '', environment: 'api' });
    query = await approveConsent(start.json<{ url: string }>().url, { business: shop });
  } else {
    const created = await post('/api/frontend/integration/create', { type: provider });
    const channelId = created.json<ChannelSummary>().id;
    const properties = provider === 'shopify' ? { shop, channelId } : { hash: shop, channelId };
    const res = await trpcOver(t.app, tenant.headers).query<{ url: string }>('channels.getOauthUrl', {
      provider,
      properties,
    });
    if (!res.data) throw new Error(`getOauthUrl failed: ${JSON.stringify(res.error)}`);
    query = await approveConsent(res.data.url);
  }
  const done = await post(`/api/v1/oauth/${provider}/process-oauth`, query);
  const { channelId } = done.json<ProcessOauthResult>();
  const detail = await trpcOver(t.app, tenant.headers).query<ChannelDetail>('channels.get', { id: channelId });
  if (!detail.data) throw new Error(`channels.get failed: ${JSON.stringify(detail.error)}`);
  return detail.data;
}
