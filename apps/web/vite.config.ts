import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { startPreload } from './src/start/startPreload.ts';

// In development the API runs separately (`stagecraft serve --port 8787`); Vite proxies /api to it.
const apiPort = process.env.STAGECRAFT_API_PORT ?? '8787';

export default defineConfig({
  plugins: [react(), startPreload()],
  // STAGECRAFT_WEB_MINIFY=0 keeps function names for profiles (bench/web-frames.ts --trace).
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    minify: process.env.STAGECRAFT_WEB_MINIFY !== '0',
  },
  worker: { format: 'es' },
  server: {
    port: 5173,
    proxy: { '/api': { target: `http://127.0.0.1:${apiPort}`, changeOrigin: false } },
  },
});
