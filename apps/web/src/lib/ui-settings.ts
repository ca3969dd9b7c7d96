import { localStorageColorSchemeManager } from '@mantine/core';
import { UiSettings } from '@switchyard/contracts';

/** SPEC §3/§9: sidebar visible, light theme, unless the user chose otherwise. */
export const UI_DEFAULTS: UiSettings = UiSettings.parse({});

/** Kept in step with public/color-scheme.js, which applies the stored mode before the first paint. */
export const COLOR_SCHEME_STORAGE_KEY = 'switchyard-color-scheme';

export const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_STORAGE_KEY });
