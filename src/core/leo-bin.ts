import { fileURLToPath } from 'node:url';

/** bin/leo.js of this checkout, from dist/src/core/: what hooks and task runs call back into. */
export const LEO_BIN = fileURLToPath(new URL('../../../bin/leo.js', import.meta.url));
