import { vi } from 'vitest';

/** Makes the window match `query` alone (jsdom matches no media query), as a wide screen or a phone would. */
export function matchOnly(query: string) {
  const none = window.matchMedia;
  vi.spyOn(window, 'matchMedia').mockImplementation((asked: string) => ({ ...none(asked), matches: asked === query }));
}
