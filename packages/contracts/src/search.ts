import { z } from 'zod';

/** Colour modes (SPEC §2): light, dark or auto. */
export const ColorMode = z.enum(['light', 'dark', 'auto']);
export type ColorMode = z.infer<typeof ColorMode>;

/** The shell's optional `theme` query parameter may hold only letters, digits and spaces. */
export const ThemeParam = z.string().regex(/^[A-Za-z0-9 ]+$/);

/** Reads a theme parameter into a colour mode; anything else is ignored (undefined). */
export function colorModeFromParam(value: unknown): ColorMode | undefined {
  const parsed = ThemeParam.safeParse(value);
  if (!parsed.success) return undefined;
  const mode = ColorMode.safeParse(parsed.data.trim().toLowerCase());
  return mode.success ? mode.data : undefined;
}

export const DashboardTimeframe = z.enum(['30d', '6m', '1y']);
export const DashboardGranularity = z.enum(['day', 'week', 'month', 'year']);
export const DashboardSearch = z.object({
  timeframe: DashboardTimeframe.catch('30d').default('30d'),
  granularity: DashboardGranularity.catch('day').default('day'),
});
export type DashboardSearch = z.infer<typeof DashboardSearch>;

export const UiSettings = z.object({
  sidebarVisible: z.boolean().default(true),
  theme: ColorMode.default('light'),
});
export type UiSettings = z.infer<typeof UiSettings>;
