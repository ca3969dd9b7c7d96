import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signEasyPost } from '@switchyard/sandbox';
import { describe, expect, it } from 'vitest';
import { CarrierError, EasyPostClient, verifyEasyPostSignature } from '../../carriers/easypost.ts';
import { combineRates, countryCode } from './shipments.service.ts';
import { shipmentTrackingStatus } from './shipments.tracking.ts';

const r = (carrier: string, service: string, rate: string, days: number | null) => ({
  carrier,
  service,
  rate,
  currency: 'USD',
  delivery_days: days,
});

describe('rate shopping', () => {
  it('sums each service over the parcels, keeps only services every parcel has, marks cheapest and fastest', () => {
    const rates = combineRates([
      [r('USPS', 'Priority', '8.10', 2), r('UPS', 'NextDayAir', '40.00', 1), r('USPS', 'GroundAdvantage', '5.25', 4)],
      [r('USPS', 'Priority', '9.00', 3), r('UPS', 'NextDayAir', '41.50', 1)],
    ]);
    expect(rates.map((x) => [x.key, x.amount, x.deliveryDays, x.cheapest, x.fastest])).toEqual([
      ['USPS:Priority', 1710, 3, true, false],
      ['UPS:NextDayAir', 8150, 1, false, true],
    ]);
  });

  it('marks no fastest when no rate says how long it takes', () => {
    const rates = combineRates([[r('X', 'A', '1.00', null), r('X', 'B', '2.00', null)]]);
    expect(rates.filter((x) => x.fastest)).toEqual([]);
    expect(rates[0]?.cheapest).toBe(true);
  });
});

describe('addresses and tracking', () => {
  it('gives carriers ISO country codes', () => {
    expect(['United States', 'us', 'USA', '', null, 'Canada', 'DE'].map(countryCode)).toEqual([
      'US',
      'US',
      'US',
      'US',
      'US',
      'CA',
      'DE',
    ]);
  });

  it("shows a shipment's problem parcel first, else its least advanced one", () => {
    expect(shipmentTrackingStatus(['delivered', 'in_transit'])).toBe('in_transit');
    expect(shipmentTrackingStatus(['delivered', 'failure', 'pre_transit'])).toBe('failure');
    expect(shipmentTrackingStatus([null])).toBeNull();
  });

  it('verifies EasyPost signatures over the raw body, weights read as floats as EasyPost signs them', () => {
    const body = Buffer.from('{"id":"evt_1","result":{"weight":16,"tracking_code":"EZ1"}}');
    const header = signEasyPost(body.toString(), 'secret-secret-secret');
    expect(verifyEasyPostSignature(body, header, 'secret-secret-secret')).toBe(true);
    expect(verifyEasyPostSignature(body, header, 'another-secret-value')).toBe(false);
    expect(verifyEasyPostSignature(Buffer.from(`${body} `), header, 'secret-secret-secret')).toBe(false);
    expect(verifyEasyPostSignature(body, undefined, 'secret-secret-secret')).toBe(false);
  });
});

describe('label files', () => {
  it('answers a label host that cannot be reached as a carrier error (a 502), not an unexpected one', async () => {
    const client = new EasyPostClient(
      { mode: 'sandbox', baseUrl: 'http://127.0.0.1:9/v2/', apiKey: 'k', webhookSecret: 's' },
      { timeoutMs: 500 },
    );
    // Port 9 (discard) refuses at once: every attempt fails before any answer.
    const read = client.labelFile('http://127.0.0.1:9/label.pdf');
    await expect(read).rejects.toBeInstanceOf(CarrierError);
    await expect(read).rejects.toMatchObject({ code: 'NO_ANSWER', message: 'The label file could not be read.' });
  });
});

/** An EasyPost client pointed at a local server that answers every request with `handler`. */
async function carrierAnswering(handler: RequestListener) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new EasyPostClient({
    mode: 'sandbox',
    baseUrl: `http://127.0.0.1:${port}/v2/`,
    apiKey: 'k',
    webhookSecret: 's',
  });
  return { server, client };
}

describe('carrier answers', () => {
  it('answers a 200 from the carrier whose body is not JSON as a carrier error, not an unexpected one', async () => {
    const { server, client } = await carrierAnswering((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'),
    );
    try {
      const read = client.listWebhooks();
      await expect(read).rejects.toBeInstanceOf(CarrierError);
      await expect(read).rejects.toMatchObject({ code: 'BAD_ANSWER', transient: true });
    } finally {
      server.close();
    }
  });
});

describe('carrier answers cut off', () => {
  it('answers a connection dropped in the middle of the body as a carrier error, not an unexpected one', async () => {
    const { server, client } = await carrierAnswering((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"id":"shp_1","rates":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    try {
      // A purchase is sent once: its lost answer is the carrier's failure (a 502), with a write possibly made.
      const buy = client.buy('shp_1', 'rate_1');
      await expect(buy).rejects.toBeInstanceOf(CarrierError);
      await expect(buy).rejects.toMatchObject({
        code: 'NO_ANSWER',
        status: 0,
        message: "The carrier's answer was cut off.",
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
