// Runs before the first paint (a plain script in <head>): sets the colour mode Mantine will use, so a
// dark page does not flash white. Mirrors src/lib/ui-settings.ts and colorModeFromParam() in contracts.
(() => {
  const STORAGE_KEY = 'switchyard-color-scheme';
  const MODES = ['light', 'dark', 'auto'];
  let mode = 'light';
  try {
    const stored = window.localStorage.getItem(STORAGE_KEY);
    if (MODES.includes(stored)) mode = stored;
    const param = new URLSearchParams(window.location.search).get('theme');
    if (param && /^[A-Za-z0-9 ]+$/.test(param)) {
      const fromParam = param.trim().toLowerCase();
      if (MODES.includes(fromParam)) {
        mode = fromParam;
        window.localStorage.setItem(STORAGE_KEY, mode);
      }
    }
  } catch {
    // Storage blocked: keep the default.
  }
  const dark = mode === 'dark' || (mode === 'auto' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.setAttribute('data-mantine-color-scheme', dark ? 'dark' : 'light');
})();
