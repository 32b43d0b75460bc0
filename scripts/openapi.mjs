// Writes docs/openapi.json from the built daemon (`npm run openapi`, after the build): the committed contract is
// whatever the routes' schemas say, never edited by hand. `--check` fails instead when the file is out of date; the
// OpenAPI test does the same in `npm test`, which is why the build itself never rewrites the file.
import fs from 'node:fs';

const { buildOpenApiDocument } = await import(new URL('../dist/src/daemon/openapi-file.js', import.meta.url).href);
const file = new URL('../docs/openapi.json', import.meta.url);
const text = await buildOpenApiDocument();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== text) {
    console.error('docs/openapi.json is out of date: run `npm run openapi` and commit it');
    process.exit(1);
  }
} else if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
