import { type MantineColorScheme, SegmentedControl, useMantineColorScheme } from '@mantine/core';
import { ColorMode } from '@switchyard/contracts';

const OPTIONS: { value: ColorMode; label: string }[] = [
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
  { value: 'auto', label: 'Auto' },
];

/** Light, dark or auto (follow the system); Mantine remembers the choice in local storage. */
export function ColorModeSwitch() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <SegmentedControl
      aria-label="Colour mode"
      size="xs"
      data={OPTIONS}
      value={colorScheme}
      onChange={(value) => {
        const mode = ColorMode.safeParse(value);
        if (mode.success) setColorScheme(mode.data satisfies MantineColorScheme);
      }}
    />
  );
}
