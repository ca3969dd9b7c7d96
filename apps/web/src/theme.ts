import { createTheme } from '@mantine/core';

// System fonts only: the CSP allows no font hosts, and a back office should feel native.
export const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  cursorType: 'pointer',
});
