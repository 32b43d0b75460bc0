import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Access } from './access.js';
import { notFound } from '../core/leo-error.js';

/** Where `npm run build` puts Leo Web: dist/web, beside the compiled daemon (dist/src/http/ → dist/web). */
export const WEB_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');

/**
 * The app's documents run only what the daemon served: no inline script or style, no other origin, never framed.
 * connect-src 'self' keeps a token the page holds from being sent anywhere else even by an injected script.
 * Images and voice notes come through the authenticated client as blob URLs (img-src and media-src blob:).
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "media-src 'self' blob:; worker-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; manifest-src 'self'";

const IMMUTABLE = 'public, max-age=31536000, immutable';

function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
}

/**
 * Leo Web on the TCP listener at `/` (issue 16). Every file gets a route of its own, declared public, so the route
 * table (and the access matrix) lists exactly what is served: `/` (index.html), each top-level file of dist/web (the
 * manifest, icons), and `/assets/:file` for Vite's content-hashed bundles, which are cached forever. Everything else
 * is revalidated on every load, so a new build is picked up at once. Top-level files are listed at start-up (a
 * rebuild that adds one needs a daemon restart); assets are looked up per request, so a rebuild's new bundles serve.
 */
export const webRoutes: FastifyPluginAsync<{ root?: string }> = async (app, opts) => {
  const root = opts.root ?? WEB_ROOT;
  const access = { config: { access: Access.public } };
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    app.get('/', access, async (_req, reply) =>
      reply.code(503).type('text/plain; charset=utf-8').send('Leo Web is not built: run `npm run build`.\n'),
    );
    return;
  }
  // The build wrote .br and .gz beside each text file; a client that accepts one gets it (Vary: Accept-Encoding).
  await app.register(fastifyStatic, { root, serve: false, index: false, preCompressed: true });
  // A missing file's 404 must not be remembered forever under the immutable header set before the lookup.
  app.addHook('onSend', async (_req, reply) => {
    if (reply.statusCode >= 400) reply.header('cache-control', 'no-store');
  });

  const send = (reply: FastifyReply, file: string, dir: string, immutable: boolean) => {
    securityHeaders(reply);
    reply.header('cache-control', immutable ? IMMUTABLE : 'no-cache');
    return reply.sendFile(file, dir, { cacheControl: false, dotfiles: 'deny' });
  };

  app.get('/', access, async (_req, reply) => send(reply, 'index.html', root, false));
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === 'index.html' || entry.name.startsWith('.') || /\.(gz|br)$/.test(entry.name))
      continue;
    app.get(`/${entry.name}`, access, async (_req, reply) => send(reply, entry.name, root, false));
  }
  const assets = path.join(root, 'assets');
  app.get('/assets/:file', access, async (req, reply) => {
    const { file } = req.params as { file: string };
    // Vite's names are word characters, dots and dashes; nothing else (no separators, no dotfiles) reaches the disk.
    if (!/^[\w-][\w.-]*$/.test(file) || !fs.existsSync(path.join(assets, file))) throw notFound(`no asset ${file}`);
    return send(reply, file, assets, true);
  });
};
