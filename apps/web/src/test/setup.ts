import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { toast } from 'sonner';
import { afterEach, beforeEach, vi } from 'vitest';
import { http, resetApi } from '../lib/api.ts';
import { takeUnexpectedConsoleOutput, watchConsole } from './console.ts';

// --- Browser APIs jsdom lacks, which Mantine and the router use. -----------------------------------
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string): MediaQueryList => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver ??= ResizeObserverStub;
window.scrollTo = () => {};
Element.prototype.scrollIntoView = () => {};
// Sonner captures the pointer to follow swipes.
Element.prototype.setPointerCapture ??= () => {};
Element.prototype.releasePointerCapture ??= () => {};
Element.prototype.hasPointerCapture ??= () => false;

// A screen that loads lazily may take more than Testing Library's default second to appear on a busy machine (CI
// runs two test files per core's worth of work): findBy and waitFor wait up to 5 s; what never appears still fails.
configure({ asyncUtilTimeout: 5000 });

// Testing Library only advances fake timers inside waitFor/findBy when it sees a `jest` global.
Object.assign(globalThis, { jest: { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) } });

// --- An unexpected console.error or console.warn fails the test (STYLE §8); see console.ts. ----------
watchConsole();

const realAdapter = http.defaults.adapter;

beforeEach(() => {
  window.localStorage.clear();
  document.documentElement.removeAttribute('data-mantine-color-scheme');
});

afterEach(() => {
  cleanup();
  toast.dismiss();
  resetApi();
  http.defaults.adapter = realAdapter;
  vi.useRealTimers();
  const messages = takeUnexpectedConsoleOutput();
  if (messages.length > 0) throw new Error(`Unexpected console output:\n${messages.join('\n')}`);
});
