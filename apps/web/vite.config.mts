// The web GUI (ADR 0052): built into dist/web with hashed file names under /assets/, no inline
// script or style (the gateway serves it under a strict Content-Security-Policy).
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Nothing inlined: every asset is a file the CSP's 'self' allows.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npx vite apps/web` during development: the API of a running quick start.
    proxy: {
      '/api': { target: 'https://localhost:8443', secure: false },
      '/auth': { target: 'https://localhost:8443', secure: false },
    },
  },
});
