import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

export const LEO_VERSION: string = pkg.version;
/** Version of the /api/v1 wire contract; additive changes do not bump it. */
export const API_VERSION = 1;
