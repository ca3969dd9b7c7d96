import { describe, expect, it } from 'vitest';
import { serviceName } from './shipment-api.ts';

describe('serviceName', () => {
  it('reads the carriers’ service codes as words, the carrier named once', () => {
    expect(serviceName('USPS', 'GroundAdvantage')).toBe('USPS Ground Advantage');
    expect(serviceName('UPS', '2ndDayAir')).toBe('UPS 2nd Day Air');
    expect(serviceName('FedEx', 'FEDEX_GROUND')).toBe('FedEx Ground');
    expect(serviceName('FedEx', 'FEDEX_2_DAY')).toBe('FedEx 2 Day');
    expect(serviceName('FedEx', 'STANDARD_OVERNIGHT')).toBe('FedEx Standard Overnight');
    expect(serviceName(null, 'Priority')).toBe('Priority');
    expect(serviceName('USPS', null)).toBe('USPS');
  });
});
