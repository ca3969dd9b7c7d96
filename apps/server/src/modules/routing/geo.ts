// Where a destination is, from its postal code alone, offline; and how far two points are.
//
// The data set is the `zipcodes` package (npm, BSD): every US ZIP code (5 digits, a ZIP+4 is cut to its first
// five) and every Canadian forward sortation area (the first three characters of a postal code: "M5V 3L9" is
// placed at M5V), each with a latitude and longitude; it ships in the package, so no request leaves the server.
// Anything else (another country, a code the data set does not know, no code at all) is not placed: its
// distance is unknown (null), "too far" cannot be judged and is not applied, and a nearest-first rule falls back
// to its preference order for that order. The decision's trace says so in its destination note.
import zipcodes from 'zipcodes';

export interface Point {
  latitude: number;
  longitude: number;
}

export interface Placed {
  point: Point | null;
  /** One sentence for the trace. */
  note: string;
}

const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in km (haversine), rounded to 0.1 km. */
export function distanceKm(a: Point, b: Point): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return Math.round(2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h))) * 10) / 10;
}

const COUNTRY_CODES: Record<string, string> = {
  US: 'US',
  USA: 'US',
  'UNITED STATES': 'US',
  'UNITED STATES OF AMERICA': 'US',
  CA: 'CA',
  CAN: 'CA',
  CANADA: 'CA',
};

/** A country as an ISO alpha-2 code where we know it ("United States" → US); otherwise upper-cased as given. */
export function countryCode(country: string | null | undefined): string | null {
  if (!country) return null;
  const up = country.trim().toUpperCase();
  return COUNTRY_CODES[up] ?? (up || null);
}

/** The postal code as the data set keys it, and whether the country is one it covers. */
function keyOf(postalCode: string, country: string | null): string | null {
  const compact = postalCode.replace(/\s+/g, '').toUpperCase();
  if (country && country !== 'US' && country !== 'CA') return null;
  if (/^\d{5}(-?\d{4})?$/.test(compact) && country !== 'CA') return compact.slice(0, 5);
  if (/^[A-Z]\d[A-Z](\d[A-Z]\d)?$/.test(compact) && country !== 'US') return compact.slice(0, 3);
  return null;
}

const cache = new Map<string, Placed>();

/** Places a destination by its postal code (see the top of this file for what is covered). */
export function placePostalCode(postalCode: string | null | undefined, country: string | null | undefined): Placed {
  const code = countryCode(country);
  if (!postalCode?.trim()) return { point: null, note: 'The destination has no postal code: distances are unknown.' };
  const cacheKey = `${code ?? ''}|${postalCode}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const key = keyOf(postalCode, code);
  let placed: Placed;
  if (!key) {
    placed = {
      point: null,
      note: `Postal code ${postalCode.trim()}${code ? ` (${code})` : ''} is outside the offline data set (US ZIP codes and Canadian postal codes): distances are unknown.`,
    };
  } else {
    const found = zipcodes.lookup(key);
    placed = found
      ? {
          point: { latitude: found.latitude, longitude: found.longitude },
          note: `Postal code ${postalCode.trim()} placed at ${found.city.split(' (')[0]}, ${found.state}.`,
        }
      : {
          point: null,
          note: `Postal code ${postalCode.trim()} is not in the offline data set: distances are unknown.`,
        };
  }
  if (cache.size > 50_000) cache.clear();
  cache.set(cacheKey, placed);
  return placed;
}
