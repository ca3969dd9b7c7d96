/**
 * Passes per key (a channel's waiting events, say), one at a time per owner (the app's services) in this
 * process. A call while a pass runs starts one more after it (the running one may have read before the
 * caller's work was stored); a call while one already waits joins that one, which will see the caller's work
 * too. So a burst of calls costs at most two passes, not one each.
 */
export function passesPerKey<Owner extends object>(
  pass: (owner: Owner, key: string) => Promise<void>,
): (owner: Owner, key: string) => Promise<void> {
  const state = new WeakMap<Owner, { running: Map<string, Promise<void>>; waiting: Map<string, Promise<void>> }>();
  return async (owner, key) => {
    let maps = state.get(owner);
    if (!maps) {
      maps = { running: new Map(), waiting: new Map() };
      state.set(owner, maps);
    }
    const { running, waiting } = maps;
    const joined = waiting.get(key);
    if (joined) return joined;
    const before = running.get(key) ?? Promise.resolve();
    const mine: Promise<void> = before
      .catch(() => undefined)
      .then(() => {
        if (waiting.get(key) === mine) waiting.delete(key);
        return pass(owner, key);
      });
    waiting.set(key, mine);
    running.set(key, mine);
    try {
      await mine;
    } finally {
      if (running.get(key) === mine) running.delete(key);
    }
  };
}

/**
 * At most `limit` holders at once: `take()` answers when it is the caller's turn, with the function that ends it
 * (once; a second call does nothing). A turn that ends goes to the longest waiting caller.
 */
export function turns(limit: number): () => Promise<() => void> {
  let taken = 0;
  const waiting: (() => void)[] = [];
  return async () => {
    if (taken < limit) taken += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // handed the turn of one that ended
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = waiting.shift();
      if (next) next();
      else taken -= 1;
    };
  };
}
