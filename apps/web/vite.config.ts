import { randomBytes } from 'node:crypto';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const API_TARGET = 'http://127.0.0.1:3000';

/** BUILD_ID from the environment wins, so a deploy can pin it; otherwise time + randomness. */
function resolveBuildId(command: 'build' | 'serve'): string {
  if (command === 'serve') return 'dev';
  const fromEnv = process.env.BUILD_ID?.trim();
  const buildId = fromEnv || `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  // health.checkBuildId accepts 1 to 100 characters (CheckBuildIdInput); a longer id could never match.
  // (The contracts package is TypeScript source, which Node cannot load while it reads this config.)
  if (buildId.length > 100) throw new Error('BUILD_ID must be at most 100 characters');
  return buildId;
}

/** Writes dist/build.json, which the server reads to answer health.checkBuildId. */
function buildInfo(buildId: string): Plugin {
  return {
    name: 'switchyard:build-info',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'build.json', source: `${JSON.stringify({ buildId })}\n` });
    },
  };
}

export default defineConfig(({ command }) => {
  const buildId = resolveBuildId(command);
  return {
    plugins: [
      tanstackRouter({
        target: 'react',
        autoCodeSplitting: true,
        // Tests sit next to the routes they cover; they are not routes.
        routeFileIgnorePattern: '\\.test\\.tsx?$',
      }),
      react(),
      buildInfo(buildId),
    ],
    define: { 'import.meta.env.VITE_BUILD_ID': JSON.stringify(buildId) },
    server: { proxy: { '/api': API_TARGET } },
    preview: { proxy: { '/api': API_TARGET } },
  };
});
