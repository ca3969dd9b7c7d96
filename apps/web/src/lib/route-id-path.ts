/**
 * SPEC §2 names some screens by their route ids (`/_app/dashboard/`, `/_app/settings/_layout/profile`).
 * Pathless layout segments (`_app`, `_layout`, anything starting with `_`) are not part of the real
 * address; this gives the address such a route id stands for, or undefined when there is nothing to strip.
 */
export function pathForRouteId(pathname: string): string | undefined {
  const segments = pathname.split('/');
  const kept = segments.filter((segment) => !segment.startsWith('_'));
  if (kept.length === segments.length) return undefined;
  const path = kept.join('/');
  return path.startsWith('/') ? path : `/${path}`;
}
