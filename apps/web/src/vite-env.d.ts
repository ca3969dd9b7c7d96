/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Set by vite.config.ts: 'dev' on the dev server, a unique id per production build. */
  readonly VITE_BUILD_ID?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
