import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The workspace packages resolve to their TypeScript source, as in the tests (no dist/ needed first).
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['berth-source'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Every script is a file of our origin: the page's CSP has no 'unsafe-inline'.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/checkout': 'http://127.0.0.1:8080' },
  },
});
