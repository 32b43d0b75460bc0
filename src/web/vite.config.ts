import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import preact from '@preact/preset-vite';
import { defineConfig, transformWithOxc, type Plugin } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

const COMPRESSIBLE = /\.(js|css|html|svg|webmanifest|json)$/;

/**
 * Writes a .gz and a .br beside every text file of the build, once, at build time: the daemon serves them to clients
 * that accept them (@fastify/static preCompressed) instead of compressing on every request on the main thread.
 */
function precompress(): Plugin {
  return {
    name: 'leo-precompress',
    apply: 'build',
    writeBundle(options) {
      const walk = (dir: string): string[] =>
        fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
          const p = path.join(dir, e.name);
          return e.isDirectory() ? walk(p) : [p];
        });
      for (const file of walk(options.dir!).filter((f) => COMPRESSIBLE.test(f))) {
        const body = fs.readFileSync(file);
        fs.writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
        fs.writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

/**
 * Builds the service worker (sw/sw.ts) into /sw.js: unhashed at the root, since a worker's URL is its identity and its
 * scope. It is a classic script that imports nothing, so stripping its types is its whole build; its own tsconfig
 * type-checks it against the WebWorker lib. It runs after the other plugins, once the bundle holds index.html, and
 * writes in the shell it caches: every file of the build and of public/, and a version hashed from all their bytes, so
 * any change to the shell is a new sw.js, which is what makes the browser install a new worker.
 */
function serviceWorker(): Plugin {
  const source = path.join(here, 'sw', 'sw.ts');
  const publicDir = path.join(here, 'public');
  return {
    name: 'leo-service-worker',
    apply: 'build',
    enforce: 'post',
    async generateBundle(_options, bundle) {
      const { code } = await transformWithOxc(fs.readFileSync(source, 'utf8'), source, { lang: 'ts' });
      // An import or export left after the types are gone would be a syntax error in a classic script: the browser
      // would refuse the worker at registration, with no sign of it at build time.
      if (/^\s*(import|export)\b/m.test(code))
        this.error(`${source} must build to a classic script: no import or export`);
      const files = new Map<string, string | Uint8Array>();
      for (const out of Object.values(bundle)) files.set(out.fileName, out.type === 'chunk' ? out.code : out.source);
      for (const name of fs.readdirSync(publicDir)) files.set(name, fs.readFileSync(path.join(publicDir, name)));
      const hash = createHash('sha256');
      const shell = [...files.keys()].sort().map((name) => {
        hash.update(name).update(files.get(name)!);
        // The daemon serves index.html at `/` only.
        return name === 'index.html' ? '/' : `/${name}`;
      });
      const version = hash.digest('hex').slice(0, 16);
      const prelude = `const SHELL_VERSION = ${JSON.stringify(version)};\nconst SHELL_FILES = ${JSON.stringify(shell)};\n`;
      // After the 'use strict' directive, which only counts as the script's first statement.
      const strict = /^(['"])use strict\1;?\n/m.exec(code);
      const at = strict ? strict.index + strict[0].length : 0;
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: code.slice(0, at) + prelude + code.slice(at) });
    },
  };
}

// Leo Web is built from src/web into dist/web, which the daemon serves (src/http/web-routes.ts). Hashed file names
// under assets/ are what lets the daemon cache them forever.
export default defineConfig({
  root: here,
  base: '/',
  plugins: [preact(), serviceWorker(), precompress()],
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
