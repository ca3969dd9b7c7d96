// Rates by weight and zone, as a carrier's published tables are: the zone comes from how far apart the two
// ZIP codes' three-digit prefixes are (USPS zones 1–8), the price from the billed weight in whole pounds.

export interface ServiceTable {
  carrier: 'USPS' | 'UPS' | 'FedEx';
  service: string;
  /** Cents: base + perLb × lb + perZone × zone + perLbZone × lb × zone. */
  base: number;
  perLb: number;
  perZone: number;
  perLbZone: number;
  /** Delivery days by zone 1..8. */
  days: readonly number[];
}

export const SERVICES: readonly ServiceTable[] = [
  {
    carrier: 'USPS',
    service: 'GroundAdvantage',
    base: 450,
    perLb: 55,
    perZone: 35,
    perLbZone: 8,
    days: [2, 2, 3, 3, 4, 4, 5, 5],
  },
  {
    carrier: 'USPS',
    service: 'Priority',
    base: 800,
    perLb: 70,
    perZone: 60,
    perLbZone: 12,
    days: [1, 2, 2, 2, 3, 3, 3, 3],
  },
  {
    carrier: 'USPS',
    service: 'Express',
    base: 2800,
    perLb: 150,
    perZone: 120,
    perLbZone: 10,
    days: [1, 1, 1, 1, 1, 2, 2, 2],
  },
  {
    carrier: 'UPS',
    service: 'Ground',
    base: 950,
    perLb: 60,
    perZone: 50,
    perLbZone: 10,
    days: [1, 1, 2, 3, 4, 5, 5, 5],
  },
  {
    carrier: 'UPS',
    service: '2ndDayAir',
    base: 2100,
    perLb: 110,
    perZone: 90,
    perLbZone: 14,
    days: [2, 2, 2, 2, 2, 2, 2, 2],
  },
  {
    carrier: 'UPS',
    service: 'NextDayAir',
    base: 4200,
    perLb: 180,
    perZone: 160,
    perLbZone: 20,
    days: [1, 1, 1, 1, 1, 1, 1, 1],
  },
  {
    carrier: 'FedEx',
    service: 'FEDEX_GROUND',
    base: 940,
    perLb: 62,
    perZone: 48,
    perLbZone: 10,
    days: [1, 1, 2, 3, 4, 5, 5, 5],
  },
  {
    carrier: 'FedEx',
    service: 'FEDEX_2_DAY',
    base: 2050,
    perLb: 115,
    perZone: 85,
    perLbZone: 14,
    days: [2, 2, 2, 2, 2, 2, 2, 2],
  },
  {
    carrier: 'FedEx',
    service: 'STANDARD_OVERNIGHT',
    base: 4300,
    perLb: 175,
    perZone: 165,
    perLbZone: 20,
    days: [1, 1, 1, 1, 1, 1, 1, 1],
  },
];

/** 1..8 from the ZIP codes' prefixes; null when either is not a US ZIP. */
export function zoneOf(fromZip: string | undefined, toZip: string | undefined): number | null {
  const a = /^(\d{3})\d{2}(-\d{4})?$/.exec((fromZip ?? '').trim());
  const b = /^(\d{3})\d{2}(-\d{4})?$/.exec((toZip ?? '').trim());
  if (!a?.[1] || !b?.[1]) return null;
  const distance = Math.abs(Number(a[1]) - Number(b[1]));
  return Math.min(8, 1 + Math.floor(distance / 110));
}

/** Whole pounds billed for a weight in ounces (at least 1). */
export const billedPounds = (ounces: number) => Math.max(1, Math.ceil(ounces / 16));

export function priceOf(table: ServiceTable, ounces: number, zone: number): { cents: number; days: number } {
  const lb = billedPounds(ounces);
  const cents = table.base + table.perLb * lb + table.perZone * zone + table.perLbZone * lb * zone;
  return { cents, days: table.days[zone - 1] ?? 5 };
}

export const dollars = (cents: number) => (cents / 100).toFixed(2);
