import { describe, expect, it } from 'vitest';
import { shopNameOf } from './channels.oauth.ts';
import { mergeLocationMap } from './channels.service.ts';

describe('shopNameOf', () => {
  it('takes the part of a shop address before its first dot', () => {
    expect(shopNameOf('demo.myshopify.com')).toBe('demo');
    expect(shopNameOf(' https://Demo-Shop.myshopify.com/admin ')).toBe('demo-shop');
    expect(shopNameOf('demo')).toBe('demo');
    expect(shopNameOf('')).toBe('');
  });
});

describe('mergeLocationMap', () => {
  const locations = [
    { externalId: 'L1', name: 'Main street', active: true },
    { externalId: 'L2', name: 'Warehouse', active: true },
    { externalId: 'L3', name: 'Closed shop', active: false },
  ];

  it('lists every location, feeding when active, unmapped on a platform', () => {
    expect(mergeLocationMap('shopify', [], locations)).toEqual([
      { externalLocationId: 'L1', externalName: 'Main street', storeId: null, feeds: true },
      { externalLocationId: 'L2', externalName: 'Warehouse', storeId: null, feeds: true },
      { externalLocationId: 'L3', externalName: 'Closed shop', storeId: null, feeds: false },
    ]);
  });

  it('maps a Square location to itself as the POS store', () => {
    expect(mergeLocationMap('square', [], locations.slice(0, 1))).toEqual([
      { externalLocationId: 'L1', externalName: 'Main street', storeId: 'L1', feeds: true },
    ]);
  });

  it('keeps what the merchant chose, takes new names, and drops locations the shop no longer has', () => {
    const current = [
      { externalLocationId: 'L1', externalName: 'Old name', storeId: 'SQ-9', feeds: false },
      { externalLocationId: 'L9', externalName: 'Gone', storeId: 'SQ-1', feeds: true },
    ];
    expect(mergeLocationMap('shopify', current, locations.slice(0, 2))).toEqual([
      { externalLocationId: 'L1', externalName: 'Main street', storeId: 'SQ-9', feeds: false },
      { externalLocationId: 'L2', externalName: 'Warehouse', storeId: null, feeds: true },
    ]);
  });
});
