import type { Address } from '@switchyard/contracts';
import { formatAddress } from 'localized-address-format';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** The country's name for an ISO 3166 two-letter code ("US" → "United States"); null for anything else. */
function countryName(code: string): string | null {
  // A well-formed code never throws; one no region has answers undefined.
  return /^[A-Z]{2}$/.test(code) ? (regionNames.of(code) ?? null) : null;
}

const present = (value: string | null | undefined): value is string => Boolean(value?.trim());

/**
 * An address as it is written in its country, a line each (name, company, street, the city line in that country's
 * order, the country's name, the phone): "Portland, OR 97205" in the United States, "10115 Berlin" in Germany,
 * "London" then "N1 9GU" in the United Kingdom (Google's address formats, through localized-address-format).
 * Where the country is not a known code, or its format would leave out a city, region or postal code the channel
 * gave us (Japan's Latin format has no city line), the city line is "City, Region Postal code".
 */
export function addressLines(address: Address): string[] {
  const code = address.country?.trim().toUpperCase() ?? '';
  const country = countryName(code);
  const streets = [address.address1, address.address2].filter(present);
  const given = [address.city, address.province, address.zip].filter(present);
  let lines: string[] | null = null;
  if (country) {
    const local = formatAddress(
      {
        postalCountry: code,
        administrativeArea: address.province ?? '',
        locality: address.city ?? '',
        postalCode: address.zip ?? '',
        organization: address.company ?? '',
        name: address.name ?? '',
        addressLines: streets,
      },
      'latin',
    ).filter(present);
    // Each part as a whole word or words: a region "CA" inside "CAMBRIDGE" is not a region shown.
    const text = ` ${local.join(' ').replace(/[\s,]+/g, ' ')} `;
    if (given.every((part) => text.includes(` ${part.trim()} `))) lines = local;
  }
  lines ??= [
    address.name,
    address.company,
    ...streets,
    [[address.city, address.province].filter(present).join(', '), address.zip].filter(present).join(' '),
  ].filter(present);
  return [...lines, country ?? address.country, address.phone].filter(present);
}
