import { describe, expect, it } from 'vitest';
import { passesPerKey, turns } from './passes.ts';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('passesPerKey', () => {
  it('runs calls made while a pass runs as one more pass after it, one at a time, and keys side by side', async () => {
    const owner = {};
    const log: string[] = [];
    let open = 0;
    let most = 0;
    const pass = passesPerKey<object>(async (_owner, key) => {
      open += 1;
      most = Math.max(most, open);
      log.push(`start ${key}`);
      await tick();
      log.push(`end ${key}`);
      open -= 1;
    });
    // Calls before the pass starts join it: it has not read yet, so it sees what they stored.
    const first = [pass(owner, 'a'), pass(owner, 'a'), pass(owner, 'b')];
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start a', 'start b']);
    // A burst while it runs: one pass more, after it.
    const burst = Array.from({ length: 20 }, () => pass(owner, 'a'));
    await Promise.all([...first, ...burst]);
    expect(log.filter((l) => l === 'start a')).toHaveLength(2);
    expect(log.filter((l) => l === 'start b')).toHaveLength(1);
    expect(log.indexOf('end a')).toBeLessThan(log.lastIndexOf('start a'));
    expect(most).toBe(2);
    // Another owner (another app in the same process) has passes of its own.
    await pass({}, 'a');
    expect(log.filter((l) => l === 'start a')).toHaveLength(3);
  });

  it('starts the next pass after a failed one; the failure goes to that pass’s callers only', async () => {
    const owner = {};
    let runs = 0;
    const pass = passesPerKey<object>(async () => {
      runs += 1;
      await tick();
      if (runs === 1) throw new Error('first pass failed');
    });
    const first = pass(owner, 'a');
    await new Promise((r) => setImmediate(r));
    const second = pass(owner, 'a');
    await expect(first).rejects.toThrow('first pass failed');
    await expect(second).resolves.toBeUndefined();
    expect(runs).toBe(2);
  });
});

describe('turns', () => {
  it('lets `limit` holders in at once, hands an ended turn to the longest waiting, and ends a turn once', async () => {
    const take = turns(2);
    const first = await take();
    const second = await take();
    const order: string[] = [];
    const third = take().then((end) => {
      order.push('third');
      return end;
    });
    const fourth = take().then((end) => {
      order.push('fourth');
      return end;
    });
    await tick();
    expect(order).toEqual([]);
    first();
    first(); // ended already: does not let a second waiter in
    await tick();
    expect(order).toEqual(['third']);
    second();
    await tick();
    expect(order).toEqual(['third', 'fourth']);
    (await third)();
    (await fourth)();
    // Both turns free again: two take at once, a third waits.
    const [a, b] = await Promise.all([take(), take()]);
    let late = false;
    void take().then(() => {
      late = true;
    });
    await tick();
    expect(late).toBe(false);
    a();
    b();
  });
});
