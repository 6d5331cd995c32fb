// Serves the web console at /app: hashed assets as immutable files, every other /app path the
// single-page app's index.html (never cached, so a new build is picked up on the next load). Its
// content security policy comes with every page's from plugins/security-headers.ts.
import fs from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { App } from './context.js';

export const CONSOLE_PREFIX = '/app';

/** web/dist, resolved the same from src/http (tsx) and dist/http (built). */
export const consoleDist = path.resolve(import.meta.dirname, '../../web/dist');

export async function registerConsole(app: App, dist = consoleDist): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root: path.join(dist, 'assets'),
      prefix: `${CONSOLE_PREFIX}/assets/`,
      // Vite puts a content hash in every asset name, so a name never changes meaning.
      immutable: true,
      maxAge: '365d',
      decorateReply: false,
      index: false,
    });
    const index = async (_request: unknown, reply: FastifyReply) => {
      let html: string;
      try {
        html = await fs.readFile(path.join(dist, 'index.html'), 'utf8');
      } catch {
        return reply
          .status(503)
          .send({ detail: 'The web console is not built in this installation. Run `npm run build`, then reload.', code: 'console_not_built' });
      }
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
    };
    scope.get(CONSOLE_PREFIX, { schema: { hide: true } }, index);
    scope.get(`${CONSOLE_PREFIX}/*`, { schema: { hide: true } }, index);
  });
}
