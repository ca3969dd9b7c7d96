import { Badge, createTheme } from '@mantine/core';

// System fonts only: the CSP allows no font hosts, and a back office should feel native.
export const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  cursorType: 'pointer',
  components: {
    // A badge's label gives way (an ellipsis) when its table cell is short of room: "Finished" read "FINISH…" in the
    // returns list, "Open" read "OP…" in the orders list. Badges are a word or two: they keep it whole everywhere,
    // and the table finds the room elsewhere.
    Badge: Badge.extend({ styles: { root: { minWidth: 'max-content' } } }),
  },
});
