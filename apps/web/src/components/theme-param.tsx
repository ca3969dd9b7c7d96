import { useMantineColorScheme } from '@mantine/core';
import { colorModeFromParam } from '@switchyard/contracts';
import { useRouterState } from '@tanstack/react-router';
import { useEffect, useEffectEvent } from 'react';

/**
 * SPEC §2: `?theme=light|dark|auto` (letters, digits and spaces only) sets the colour mode on any page,
 * and Mantine's colour-scheme manager remembers it. Anything else is ignored.
 */
export function ThemeParam() {
  const searchStr = useRouterState({ select: (state) => state.location.searchStr });
  const mode = colorModeFromParam(new URLSearchParams(searchStr).get('theme'));
  const { setColorScheme } = useMantineColorScheme();
  // Applied when the parameter appears or changes, not on every render: a later pick in the colour
  // switch must win while the parameter is still in the address.
  const apply = useEffectEvent(() => {
    if (mode) setColorScheme(mode);
  });

  useEffect(() => {
    if (mode) apply();
  }, [mode]);

  return null;
}
