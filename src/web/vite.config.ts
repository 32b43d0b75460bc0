import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

// Leo Web is built from src/web into dist/web, which the daemon serves (src/http/web-routes.ts). Hashed file names
// under assets/ are what lets the daemon cache them forever.
export default defineConfig({
  root: here,
  base: '/',
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // The CSP forbids inline script and style: every asset is a file, never a data: URL or an inlined module.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
