import { MESSAGES } from '@switchyard/contracts';
import type { AxiosAdapter, InternalAxiosRequestConfig } from 'axios';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, apiUrl, http, initApi } from './api.ts';
import { errorMessage, isUnauthorized } from './errors.ts';

interface Sent {
  url: string | undefined;
  baseURL: string | undefined;
  method: string | undefined;
  params: unknown;
  data: unknown;
  authorization: unknown;
}

/** An axios adapter that answers with a raw body and records what axios would have sent. */
function adapter(body: string, status = 200, contentType = 'application/json') {
  const sent: Sent[] = [];
  const answer: AxiosAdapter = async (config: InternalAxiosRequestConfig) => {
    sent.push({
      url: config.url,
      baseURL: config.baseURL,
      method: config.method,
      params: config.params,
      data: config.data,
      authorization: config.headers.get('Authorization'),
    });
    const response = {
      data: body,
      status,
      statusText: String(status),
      headers: { 'content-type': contentType },
      config,
    };
    // The same settle rule axios's own adapters apply: validateStatus decides.
    if (config.validateStatus?.(status) ?? true) return response;
    const { AxiosError } = await import('axios');
    throw new AxiosError(`Request failed with status code ${status}`, 'ERR_BAD_RESPONSE', config, null, response);
  };
  return { answer, sent };
}

const URLS = { frontend: '/api/frontend', v1: '/api/v1', v2: '/api/v2' };

describe('REST client', () => {
  beforeEach(() => {
    http.defaults.adapter = undefined;
  });

  it('refuses to call before the base addresses are set', async () => {
    const { answer, sent } = adapter('{}');
    expect(() => apiUrl('v1')).toThrow(MESSAGES.apiUrlsNotInitialized);
    await expect(api.v1.get('locations', undefined, { adapter: answer })).rejects.toThrow('API URLs not initialized');
    expect(sent).toHaveLength(0);
  });

  it('sends the stored token as a bearer header', async () => {
    initApi(URLS);
    window.localStorage.setItem('token', 'abc.def.ghi');
    const { answer, sent } = adapter('{"ok":true}');
    await expect(api.frontend.get('metrics', undefined, { adapter: answer })).resolves.toEqual({ ok: true });
    expect(sent[0]?.authorization).toBe('Bearer abc.def.ghi');
  });

  it('sends no authorization header without a token', async () => {
    initApi(URLS);
    const { answer, sent } = adapter('{}');
    await api.frontend.get('metrics', undefined, { adapter: answer });
    expect(sent[0]?.authorization).toBeFalsy();
  });

  it('puts GET and DELETE data in the query and POST, PUT and PATCH data in a JSON body', async () => {
    initApi(URLS);
    const { answer, sent } = adapter('{}');
    const payload = { sort: 'store_id', order: 'ASC' };
    await api.v1.get('locations', payload, { adapter: answer });
    await api.v1.delete('locations/7', { force: true }, { adapter: answer });
    await api.v2.post('orders/1/shipments', payload, { adapter: answer });
    await api.v1.put('settings/apps/3', payload, { adapter: answer });
    await api.v1.patch('locations/7', payload, { adapter: answer });

    expect(sent.map(({ method, baseURL, url }) => `${method} ${baseURL}/${url}`)).toEqual([
      'get /api/v1/locations',
      'delete /api/v1/locations/7',
      'post /api/v2/orders/1/shipments',
      'put /api/v1/settings/apps/3',
      'patch /api/v1/locations/7',
    ]);
    expect(sent[0]).toMatchObject({ params: payload, data: undefined });
    expect(sent[1]).toMatchObject({ params: { force: true }, data: undefined });
    for (const request of sent.slice(2)) {
      expect(request.params).toBeUndefined();
      expect(JSON.parse(String(request.data))).toEqual(payload);
    }
  });

  it('turns a body that is not JSON into "Unable to transform response from server"', async () => {
    initApi(URLS);
    const { answer } = adapter('<html>Bad gateway</html>', 200, 'text/html');
    const failure = api.frontend.get('orders', undefined, { adapter: answer });
    await expect(failure).rejects.toThrow(MESSAGES.untransformable);
    expect(errorMessage(await failure.catch((err: unknown) => err))).toBe('Unable to transform response from server');
  });

  it('leaves other response types alone', async () => {
    initApi(URLS);
    const { answer } = adapter('sku,qty\nA-1,4', 200, 'text/csv');
    await expect(
      api.frontend.get('export/catalogInventory', undefined, { adapter: answer, responseType: 'text' }),
    ).resolves.toBe('sku,qty\nA-1,4');
  });

  it('reports the server message of a failed call and recognises a 401', async () => {
    initApi(URLS);
    const { answer } = adapter('{"code":401,"message":"Your session has expired"}', 401);
    const error = await api.frontend
      .get('account/catalogs', undefined, { adapter: answer })
      .catch((err: unknown) => err);
    expect(errorMessage(error)).toBe('Your session has expired');
    expect(isUnauthorized(error)).toBe(true);
  });

  it('does not treat other failures as an expired session', async () => {
    initApi(URLS);
    const { answer } = adapter('{"code":404,"message":"Location not found"}', 404);
    const error = await api.v1.get('locations/9', undefined, { adapter: answer }).catch((err: unknown) => err);
    expect(errorMessage(error)).toBe('Location not found');
    expect(isUnauthorized(error)).toBe(false);
  });
});
