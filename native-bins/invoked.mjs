// Whether a setup module was run as `node native-bins/<it>.mjs` rather than imported. Node builtins only.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** True when `moduleUrl` (the caller's import.meta.url) is the script node was started with. */
export function invokedDirectly(moduleUrl) {
  try {
    return (
      process.argv[1] !== undefined && fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(moduleUrl))
    );
  } catch {
    return false;
  }
}
