import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The web viewer: plain TypeScript, no framework. Built into dist/viewer/ and served by
 * `storage-inspector serve` at /viewer/ (see src/http/viewer/viewer-routes.ts).
 *
 * `npm run dev:viewer` serves it with hot reload and forwards the REST API routes to a
 * running server (STORAGE_INSPECTOR_URL, default http://127.0.0.1:4567).
 */
const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env['STORAGE_INSPECTOR_URL'] ?? 'http://127.0.0.1:4567';

export default defineConfig(({ command }) => ({
  root,
  // Relative asset URLs in the build: works at /viewer/ and behind a proxy that adds a prefix.
  base: command === 'build' ? './' : '/viewer/',
  publicDir: 'public',
  build: {
    outDir: fileURLToPath(new URL('../dist/viewer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    sourcemap: false,
    reportCompressedSize: true,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: {
      '^/(?!viewer(/|$)).*': { target: api, changeOrigin: false },
    },
  },
}));
