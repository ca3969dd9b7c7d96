import { useMediaQuery } from '@mantine/hooks';

/** Mantine's `sm` breakpoint: from here the navigation sits beside the page and tables show every column. */
export const WIDE_SCREEN = '(min-width: 48em)';
/** Below it. Asked as a query of its own, so that where no query matches at all the wide layout is kept. */
export const PHONE = '(max-width: 47.99em)';

export function useWideScreen(): boolean {
  return useMediaQuery(WIDE_SCREEN, true, { getInitialValueInEffect: false });
}

export function usePhone(): boolean {
  return useMediaQuery(PHONE, false, { getInitialValueInEffect: false });
}
