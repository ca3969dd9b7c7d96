import { describe, expect, it } from 'vitest';
import { oauthProperties, searchStrings } from './oauth-search.ts';

describe('the OAuth search', () => {
  it('turns values the router read as JSON back into their text', () => {
    expect(searchStrings({ hash: 12345, flag: true, nested: { a: 1 }, gone: undefined, empty: null, s: 'x' })).toEqual({
      hash: '12345',
      flag: 'true',
      nested: '{"a":1}',
      s: 'x',
    });
  });

  it('takes the shop from the part of the shop-or-hash value before its first dot', () => {
    expect(oauthProperties({ shop: 'harbor.myshopify.com', channelId: 'c1' })).toEqual({
      shop: 'harbor',
      channelId: 'c1',
    });
    expect(oauthProperties({ hash: 'abc123' })).toEqual({ hash: 'abc123', shop: 'abc123' });
    expect(oauthProperties({ code: 'x' })).toEqual({ code: 'x' });
  });
});
