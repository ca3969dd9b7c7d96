import { useComputedColorScheme } from '@mantine/core';
import { TOAST_DEFAULT_DURATION_MS, TOAST_VISIBLE_MAX } from '@switchyard/contracts';
import { Toaster } from 'sonner';

/** The one toaster (SPEC §9): bottom right, close button, up to 9 visible, 3 s unless a toast says otherwise. */
export function AppToaster() {
  const colorScheme = useComputedColorScheme('light');
  return (
    <Toaster
      position="bottom-right"
      closeButton
      visibleToasts={TOAST_VISIBLE_MAX}
      duration={TOAST_DEFAULT_DURATION_MS}
      theme={colorScheme}
    />
  );
}
