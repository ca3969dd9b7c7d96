import { localStorageColorSchemeManager } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import { UiSettings } from '@switchyard/contracts';

/** SPEC §3/§9: sidebar visible, light theme, unless the user chose otherwise. */
export const UI_DEFAULTS: UiSettings = UiSettings.parse({});

/** Kept in step with public/color-scheme.js, which applies the stored mode before the first paint. */
export const COLOR_SCHEME_STORAGE_KEY = 'switchyard-color-scheme';

export const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_STORAGE_KEY });

export const SIDEBAR_STORAGE_KEY = 'switchyard-sidebar-visible';

/**
 * SPEC §3 UI settings: whether the sidebar shows on a wide screen (visible unless the user hid it), remembered on
 * this device like the colour mode, and the same in every tab (Mantine's hook follows the storage event).
 */
export function useSidebarVisible() {
  return useLocalStorage<boolean>({
    key: SIDEBAR_STORAGE_KEY,
    defaultValue: UI_DEFAULTS.sidebarVisible,
    getInitialValueInEffect: false,
    deserialize: (value) => (value === undefined ? UI_DEFAULTS.sidebarVisible : value !== 'false'),
    serialize: String,
  });
}
