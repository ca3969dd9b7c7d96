/**
 * The address to go to after sign-in: the `redirect` search param only when it is a path inside the app
 * (starts with one '/', not '//' nor '/\', which browsers read as another host); otherwise the dashboard.
 */
export function safeRedirect(value: unknown, fallback = '/dashboard'): string {
  if (typeof value !== 'string' || !value.startsWith('/')) return fallback;
  const second = value.charAt(1);
  if (second === '/' || second === '\\') return fallback;
  // Control characters (tabs, newlines) are dropped by URL parsers and could turn '/\t/evil' into '//evil'.
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) < 0x20 || value.charCodeAt(i) === 0x7f) return fallback;
  }
  return value;
}
