import { useDebouncedCallback } from '@mantine/hooks';
import { SEARCH_DEBOUNCE_MS } from '@switchyard/contracts';
import { useState } from 'react';

/**
 * A text input bound to a search param with SPEC §2's 500 ms debounce. The text being typed is the input's
 * own until it is committed; a change of the param from elsewhere (Clear filters, the back button) replaces
 * it, while the param catching up with what was typed does not.
 */
export function useDebouncedText(value: string, commit: (next: string) => void, delay = SEARCH_DEBOUNCE_MS) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  const [committed, setCommitted] = useState(value);
  if (value !== seen) {
    setSeen(value);
    if (value !== committed) {
      setText(value);
      setCommitted(value);
    }
  }
  const debounced = useDebouncedCallback((next: string) => {
    setCommitted(next);
    commit(next);
  }, delay);
  return {
    text,
    setText: (next: string) => {
      setText(next);
      debounced(next.trim());
    },
    /** Commits what is typed now (Enter). */
    flush: () => debounced.flush(),
  };
}
