import { createRng } from './rng.ts';

/**
 * One deterministic merchant catalog that every simulated shop is built from. The three providers share
 * it (same SKUs and barcodes), so a merchant's Shopify, BigCommerce and Square shops hold the same goods,
 * as a real merchant's do, and the sync engine can match variants across channels by SKU.
 */
export interface SeedVariant {
  sku: string;
  barcode: string;
  title: string;
  /** Option values in the order of the product's option names, e.g. ['M', 'Black']. */
  options: string[];
  /** Minor units (cents). */
  price: number;
  compareAtPrice: number | null;
  weightGrams: number;
}

export interface SeedProduct {
  /** Stable handle, e.g. 'trail-runner-tee-12'. */
  handle: string;
  title: string;
  vendor: string;
  productType: string;
  description: string;
  tags: string[];
  optionNames: string[];
  variants: SeedVariant[];
}

export interface SeedLocation {
  key: string;
  name: string;
  address1: string;
  city: string;
  province: string;
  zip: string;
  country: string;
}

export interface SeedCatalog {
  currency: string;
  products: SeedProduct[];
  locations: SeedLocation[];
  /** On hand per SKU and location key. */
  stock: Map<string, Map<string, number>>;
}

export interface SeedOptions {
  seed?: number;
  /** Number of products; the default demo shop has 150. */
  products?: number;
  /** Number of locations, 1 to 8; the default is 4. */
  locations?: number;
  /** Force exactly this many variants per product (benchmarks); otherwise 1 to 4. */
  variantsPerProduct?: number;
}

const VENDORS = ['Northwind', 'Harbor & Pine', 'Cedar Works', 'Lumen Goods', 'Fieldcraft', 'Atlas Supply'];
const TYPES: Record<string, { nouns: string[]; optionNames: string[]; options: string[][]; price: [number, number] }> =
  {
    Apparel: {
      nouns: ['Tee', 'Hoodie', 'Crewneck', 'Overshirt', 'Jacket', 'Beanie'],
      optionNames: ['Size', 'Color'],
      options: [
        ['S', 'M', 'L', 'XL'],
        ['Black', 'Sand', 'Olive', 'Navy'],
      ],
      price: [1800, 12900],
    },
    Footwear: {
      nouns: ['Runner', 'Trail Shoe', 'Slide', 'Boot'],
      optionNames: ['Size'],
      options: [['7', '8', '9', '10', '11']],
      price: [4500, 18900],
    },
    Home: {
      nouns: ['Mug', 'Candle', 'Throw', 'Planter', 'Tray'],
      optionNames: ['Size'],
      options: [['Small', 'Large']],
      price: [1200, 8900],
    },
    Outdoor: {
      nouns: ['Bottle', 'Daypack', 'Headlamp', 'Camp Chair'],
      optionNames: ['Title'],
      options: [['One size']],
      price: [1500, 14900],
    },
  };
const ADJECTIVES = ['Classic', 'Everyday', 'Summit', 'Coastal', 'Heritage', 'Urban', 'Alpine', 'Weekend', 'Studio'];
const LOCATIONS: SeedLocation[] = [
  {
    key: 'downtown',
    name: 'Downtown Store',
    address1: '12 Market St',
    city: 'Portland',
    province: 'OR',
    zip: '97204',
    country: 'US',
  },
  {
    key: 'warehouse',
    name: 'Warehouse',
    address1: '400 Industrial Way',
    city: 'Portland',
    province: 'OR',
    zip: '97217',
    country: 'US',
  },
  {
    key: 'eastside',
    name: 'Eastside Store',
    address1: '88 Hawthorne Blvd',
    city: 'Portland',
    province: 'OR',
    zip: '97214',
    country: 'US',
  },
  {
    key: 'seattle',
    name: 'Seattle Store',
    address1: '1500 Pike Pl',
    city: 'Seattle',
    province: 'WA',
    zip: '98101',
    country: 'US',
  },
  {
    key: 'bend',
    name: 'Bend Outlet',
    address1: '5 Bond St',
    city: 'Bend',
    province: 'OR',
    zip: '97701',
    country: 'US',
  },
  {
    key: 'eugene',
    name: 'Eugene Store',
    address1: '9 Pearl St',
    city: 'Eugene',
    province: 'OR',
    zip: '97401',
    country: 'US',
  },
  {
    key: 'salem',
    name: 'Salem Store',
    address1: '30 State St',
    city: 'Salem',
    province: 'OR',
    zip: '97301',
    country: 'US',
  },
  {
    key: 'boise',
    name: 'Boise Store',
    address1: '7 Main St',
    city: 'Boise',
    province: 'ID',
    zip: '83702',
    country: 'US',
  },
];

/** GTIN-13 check digit, so barcodes look and validate like real ones. */
function ean13(base12: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(base12[i]) * (i % 2 === 0 ? 1 : 3);
  return base12 + String((10 - (sum % 10)) % 10);
}

export function seedCatalog(options: SeedOptions = {}): SeedCatalog {
  const rng = createRng(options.seed ?? 20261122);
  const productCount = options.products ?? 150;
  const locations = LOCATIONS.slice(0, Math.min(8, Math.max(1, options.locations ?? 4)));
  const products: SeedProduct[] = [];
  const stock = new Map<string, Map<string, number>>();
  const typeNames = Object.keys(TYPES);
  let barcodeSeq = 0;

  for (let p = 0; p < productCount; p++) {
    const productType = typeNames[p % typeNames.length] as string;
    const type = TYPES[productType] as (typeof TYPES)[string];
    const noun = rng.pick(type.nouns);
    const title = `${rng.pick(ADJECTIVES)} ${noun}`;
    const handle = `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${p + 1}`;
    const optionSets = type.options;
    // Every combination of the first option set (and the first value of a second one), capped.
    const first = optionSets[0] as string[];
    const second = optionSets[1];
    const count = options.variantsPerProduct ?? rng.int(1, Math.min(4, first.length));
    const basePrice = Math.round(rng.int(type.price[0], type.price[1]) / 100) * 100 - 1;
    const onSale = rng.chance(0.2);
    const secondValue = second ? rng.pick(second) : undefined;
    const variants: SeedVariant[] = [];
    for (let v = 0; v < count; v++) {
      const value = first[v % first.length] as string;
      const opts = secondValue ? [value, secondValue] : [value];
      const sku = `SY-${String(p + 1).padStart(5, '0')}-${String(v + 1).padStart(2, '0')}`;
      barcodeSeq++;
      variants.push({
        sku,
        barcode: ean13(`0840000${String(barcodeSeq).padStart(5, '0')}`),
        title: opts.join(' / '),
        options: opts,
        price: basePrice,
        compareAtPrice: onSale ? basePrice + Math.round(basePrice * 0.25) : null,
        weightGrams: rng.int(80, 1800),
      });
      const perLocation = new Map<string, number>();
      for (const loc of locations) perLocation.set(loc.key, rng.chance(0.1) ? 0 : rng.int(0, 40));
      stock.set(sku, perLocation);
    }
    products.push({
      handle,
      title,
      vendor: rng.pick(VENDORS),
      productType,
      description: `${title} by a small maker. Built to last and easy to care for.`,
      tags: [productType.toLowerCase(), ...(onSale ? ['sale'] : [])],
      optionNames: type.optionNames,
      variants,
    });
  }
  return { currency: 'USD', products, locations, stock };
}
