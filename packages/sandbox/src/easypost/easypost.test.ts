// The carrier simulator through EasyPost's official Node client: shipments and rates, buying (once), the
// label PDF, trackers on the simulator's clock, signed webhooks the client's own validator accepts, faults.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import EasyPostClient from '@easypost/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../server.ts';

let sandbox: RunningSandbox;
let receiver: Server;
let hookUrl: string;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
const SECRET = 'carrier-webhook-secret';

const from = {
  name: 'Main St Store',
  street1: '1 Main St',
  city: 'Brooklyn',
  state: 'NY',
  zip: '11201',
  country: 'US',
};
const near = { name: 'Ada Lovelace', street1: '5 Elm St', city: 'Hoboken', state: 'NJ', zip: '07030', country: 'US' };
const far = { name: 'Grace Hopper', street1: '9 Pine St', city: 'Seattle', state: 'WA', zip: '98101', country: 'US' };

const client = (key = 'EZTK_test_carrier_one') => new EasyPostClient(key, { baseUrl: `${sandbox.url}/easypost/v2/` });

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/easypost`;
  sandbox = await startSandbox({ port: 0, webhookRetryDelayMs: 10 });
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => receiver.close(r));
});

const control = (path: string, body: unknown) =>
  fetch(`${sandbox.url}/_control/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('carrier simulator (EasyPost API)', () => {
  it('rates every carrier service by weight and zone; a farther or heavier parcel costs more', async () => {
    const ep = client();
    const light = await ep.Shipment.create({ from_address: from, to_address: near, parcel: { weight: 10 } });
    expect(light.id).toMatch(/^shp_/);
    expect(light.rates.length).toBe(9);
    const rate = (s: typeof light, carrier: string, service: string) =>
      Number(
        s.rates.find((r: { carrier: string; service: string }) => r.carrier === carrier && r.service === service)?.rate,
      );
    const farShp = await ep.Shipment.create({ from_address: from, to_address: far, parcel: { weight: 10 } });
    const heavy = await ep.Shipment.create({ from_address: from, to_address: near, parcel: { weight: 90 } });
    expect(rate(farShp, 'USPS', 'GroundAdvantage')).toBeGreaterThan(rate(light, 'USPS', 'GroundAdvantage'));
    expect(rate(heavy, 'UPS', 'Ground')).toBeGreaterThan(rate(light, 'UPS', 'Ground'));
    expect(Number(farShp.usps_zone)).toBeGreaterThan(Number(light.usps_zone));
    // The client's own helper reads our rates.
    expect(light.lowestRate().carrier).toBe('USPS');
    const accounts = await ep.CarrierAccount.all();
    const ups = accounts.find((a: { readable: string }) => a.readable === 'UPS') as { id: string };
    const onlyUps = await ep.Shipment.create({
      from_address: from,
      to_address: near,
      parcel: { weight: 10 },
      carrier_accounts: [ups.id],
    });
    expect(new Set(onlyUps.rates.map((r: { carrier: string }) => r.carrier))).toEqual(new Set(['UPS']));
  });

  it('refuses a parcel without weight with its reason, and a bad key', async () => {
    await expect(client().Shipment.create({ from_address: from, to_address: near, parcel: {} })).rejects.toMatchObject({
      statusCode: 422,
      code: 'PARCEL.WEIGHT.INVALID',
    });
    await expect(
      client('nonsense').Shipment.create({ from_address: from, to_address: near, parcel: { weight: 1 } }),
    ).rejects.toMatchObject({ statusCode: 401 });
  });

  it('buys a rate once: a real 4×6 PDF label with the tracking code, and a second buy is refused', async () => {
    const ep = client();
    const shp = await ep.Shipment.create({
      from_address: from,
      to_address: near,
      parcel: { weight: 24 },
      reference: 'order-1',
      options: { label_format: 'PDF', label_size: '4x6' },
    });
    const bought = await ep.Shipment.buy(shp.id, shp.lowestRate());
    expect(bought.tracking_code).toMatch(/^9400\d{18}$/);
    expect(bought.postage_label.label_url).toMatch(/\.pdf$/);
    expect(bought.tracker.status).toBe('pre_transit');
    const pdf = Buffer.from(await (await fetch(String(bought.postage_label.label_url))).arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.toString('latin1')).toMatch(/MediaBox \[0 0 288 432\]/);
    await expect(ep.Shipment.buy(shp.id, shp.lowestRate())).rejects.toMatchObject({
      statusCode: 422,
      code: 'SHIPMENT.POSTAGE.EXISTS',
    });
    const again = await ep.Shipment.retrieve(shp.id);
    expect(again.tracking_code).toBe(bought.tracking_code);
  });

  it('makes letter labels, and a carrier refusal says why', async () => {
    const ep = client();
    const shp = await ep.Shipment.create({
      from_address: from,
      to_address: near,
      parcel: { weight: 8 },
      options: { label_size: '8.5x11' },
    });
    const bought = await ep.Shipment.buy(shp.id, String(shp.rates[0]?.id));
    const pdf = Buffer.from(await (await fetch(String(bought.postage_label.label_url))).arrayBuffer());
    expect(pdf.toString('latin1')).toMatch(/MediaBox \[0 0 612 792\]/);
    const bad = await ep.Shipment.create({
      from_address: from,
      to_address: { ...near, street1: 'UNDELIVERABLE 1 Nowhere' },
      parcel: { weight: 8 },
    });
    await expect(ep.Shipment.buy(bad.id, String(bad.rates[0]?.id))).rejects.toMatchObject({
      statusCode: 422,
      code: 'SHIPMENT.POSTAGE.FAILURE',
      message: expect.stringContaining('Address not found'),
    });
  });

  it('moves trackers on the clock and signs tracker.updated as the official client validates it', async () => {
    const ep = client('EZTK_test_carrier_hooks');
    await ep.Webhook.create({ url: hookUrl, webhook_secret: SECRET });
    const shp = await ep.Shipment.create({ from_address: from, to_address: far, parcel: { weight: 16 } });
    const ground = shp.rates.find((r) => r.service === 'GroundAdvantage');
    if (!ground) throw new Error('no GroundAdvantage rate');
    const bought = await ep.Shipment.buy(shp.id, ground);
    const days = ground.delivery_days as number;
    const statuses: string[] = [];
    for (let h = 0; h <= days * 24; h += 6) {
      await control('easypost/clock', { hours: 6 });
      const t = await ep.Tracker.retrieve(bought.tracker.id);
      if (statuses.at(-1) !== t.status) statuses.push(t.status);
    }
    expect(statuses).toEqual(['pre_transit', 'in_transit', 'out_for_delivery', 'delivered']);
    await fetch(`${sandbox.url}/_control/deliveries/settle`, { method: 'POST' });
    type Event = {
      description: string;
      result: { tracking_code: string; status: string };
      previous_attributes: { status?: string };
    };
    const events = received.map((r) => ({
      r,
      event: ep.Utils.validateWebhook(Buffer.from(r.body), r.headers as Record<string, string>, SECRET) as Event,
    }));
    const mine = events.filter((e) => e.event.result.tracking_code === bought.tracking_code);
    expect(mine.map((e) => e.event.description)).toEqual([
      'tracker.created',
      'tracker.updated',
      'tracker.updated',
      'tracker.updated',
    ]);
    expect(mine.at(-1)?.event.result.status).toBe('delivered');
    expect(mine.at(-1)?.event.previous_attributes.status).toBe('out_for_delivery');
    const first = mine[0] as (typeof mine)[number];
    expect(() =>
      ep.Utils.validateWebhook(Buffer.from(first.r.body), first.r.headers as Record<string, string>, 'wrong-secret'),
    ).toThrow();
  });

  it('stops a parcel at an exception', async () => {
    const ep = client();
    const shp = await ep.Shipment.create({ from_address: from, to_address: near, parcel: { weight: 16 } });
    const bought = await ep.Shipment.buy(shp.id, String(shp.rates[0]?.id));
    await control('easypost/clock', { hours: 13 });
    const res = await control(`easypost/trackers/${bought.tracking_code}/exception`, {});
    expect(((await res.json()) as { status: string }).status).toBe('failure');
    await control('easypost/clock', { hours: 200 });
    expect((await ep.Tracker.retrieve(bought.tracker.id)).status).toBe('failure');
  });

  it('answers faults as EasyPost does (429, 5xx)', async () => {
    const ep = client('EZTK_test_carrier_faults');
    const me = await ep.User.retrieveMe();
    await fetch(`${sandbox.url}/_control/easypost/${me.id}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rate5xx: 1 }),
    });
    await expect(ep.CarrierAccount.all()).rejects.toMatchObject({ statusCode: 500 });
    await fetch(`${sandbox.url}/_control/easypost/${me.id}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rate5xx: 0, rate429: 1 }),
    });
    await expect(ep.CarrierAccount.all()).rejects.toMatchObject({ statusCode: 429 });
    await fetch(`${sandbox.url}/_control/easypost/${me.id}/faults`, { method: 'DELETE' });
    expect((await ep.CarrierAccount.all()).length).toBe(3);
  });
});
