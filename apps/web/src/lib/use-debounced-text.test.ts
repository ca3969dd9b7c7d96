import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useDebouncedText } from './use-debounced-text.ts';

describe('useDebouncedText', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('commits once, 500 ms after the last key, with the text trimmed', () => {
    const commit = vi.fn();
    const { result } = renderHook(() => useDebouncedText('', commit));
    for (const text of ['l', 'li', 'lin', 'line', 'linen ']) {
      act(() => result.current.setText(text));
      act(() => vi.advanceTimersByTime(300));
    }
    expect(commit).not.toHaveBeenCalled();
    expect(result.current.text).toBe('linen ');
    act(() => vi.advanceTimersByTime(200));
    expect(commit).toHaveBeenCalledTimes(1);
    expect(commit).toHaveBeenCalledWith('linen');
  });

  it('commits at once on flush (Enter)', () => {
    const commit = vi.fn();
    const { result } = renderHook(() => useDebouncedText('', commit));
    act(() => result.current.setText('cap'));
    act(() => result.current.flush());
    expect(commit).toHaveBeenCalledWith('cap');
  });

  it('takes a value changed elsewhere, but not its own value coming back', () => {
    const commit = vi.fn();
    const { result, rerender } = renderHook(({ value }) => useDebouncedText(value, commit), {
      initialProps: { value: 'old' },
    });
    act(() => result.current.setText('new one'));
    act(() => vi.advanceTimersByTime(500));
    // The param catches up with what was committed while the reader has typed on.
    act(() => result.current.setText('new one two'));
    rerender({ value: 'new one' });
    expect(result.current.text).toBe('new one two');
    // Cleared from elsewhere (Clear filters).
    act(() => vi.advanceTimersByTime(500));
    rerender({ value: 'new one two' });
    rerender({ value: '' });
    expect(result.current.text).toBe('');
    // And back (the browser's Back button).
    rerender({ value: 'new one two' });
    expect(result.current.text).toBe('new one two');
  });
});
