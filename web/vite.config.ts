/**
 * Builds the public site (index.html) and the operator app (app/index.html) into dist/web, which the service
 * serves (src/api/web_pages.ts). Nothing from the environment is baked in: the pages read their API base from
 * GET /config.json at run time, and envPrefix names a prefix nobody sets, so no variable can reach the bundle.
 * `npm run dev:web` serves the pages with hot reload against a service on 127.0.0.1:8787.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const service = process.env.VOICECALL_DEV_SERVICE ?? 'http://127.0.0.1:8787';

/** Dev server only: /app and its routes answer the app's page, as the service does (Vite would send the site's). */
const appRoutes: Plugin = {
  name: 'voicecall-app-routes',
  configureServer(server) {
    server.middlewares.use((req, _res, next) => {
      if (req.url && /^\/app(\/[^.?]*)?(\?.*)?$/.test(req.url)) req.url = '/app/index.html';
      next();
    });
  },
};

export default defineConfig({
  plugins: [appRoutes],
  root: here('.'),
  base: '/',
  envPrefix: 'VOICECALL_WEB_BUILD_',
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 400,
    rolldownOptions: { input: { site: here('index.html'), app: here('app/index.html') } },
  },
  server: {
    proxy: { '/v1': { target: service, ws: true }, '/config.json': service },
  },
});
