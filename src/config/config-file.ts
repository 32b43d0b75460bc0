import fs from 'node:fs';
import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import { parseConfig } from './load.js';
import type { ChatEngineFor } from './schema.js';

/**
 * Rewrites one top-level key of leo.yaml, keeping the rest of the file (comments included) as it was. The candidate
 * text is validated with the same loader the daemon uses before it replaces the file (write to a temp name, rename),
 * so an API write can never leave a config the daemon would refuse.
 */
export function replaceTopLevelKey(
  file: string,
  key: string,
  value: unknown,
  home: string,
  chatEngineFor?: ChatEngineFor,
): { ok: true } | { ok: false; errors: string[] } {
  return rewrite(file, { home, chatEngineFor }, (doc) => {
    // An empty file parses to a null document; setIn() on it creates the top-level map.
    doc.setIn([key], value);
  });
}

/**
 * Adds a value to a list in leo.yaml (`web.allowed_hosts`), creating the list and its parents when absent; a value
 * already there is left alone (`added: false`). Comments and the file's mode are kept, as by replaceTopLevelKey.
 */
export function addToConfigList(
  file: string,
  keyPath: string[],
  value: string,
  home: string,
  chatEngineFor?: ChatEngineFor,
): { ok: true; added: boolean } | { ok: false; errors: string[] } {
  let added = false;
  const r = rewrite(file, { home, chatEngineFor }, (doc) => {
    const list = doc.getIn(keyPath);
    if (isSeq(list) ? list.items.some((i) => String((i as { value?: unknown }).value ?? i) === value) : false) return;
    if (isSeq(list)) list.add(doc.createNode(value));
    else doc.setIn(keyPath, doc.createNode([value]));
    added = true;
  });
  return r.ok ? { ok: true, added } : r;
}

/**
 * Sets (or, for undefined, deletes) the key at `keyPath`, creating its parents; comments and the file's mode are kept,
 * as by replaceTopLevelKey.
 */
export function setConfigKey(
  file: string,
  keyPath: string[],
  value: unknown,
  home: string,
  chatEngineFor?: ChatEngineFor,
): { ok: true } | { ok: false; errors: string[] } {
  return rewrite(file, { home, chatEngineFor }, (doc) => {
    if (value === undefined) deleteWithEmptyParents(doc, keyPath);
    else doc.setIn(keyPath, doc.createNode(value));
  });
}

/**
 * Deletes a key, then each parent map the deletion left empty: removing the last host leaves no `client: hosts: {}`
 * behind. A parent that still holds other keys stays.
 */
function deleteWithEmptyParents(doc: Document, keyPath: string[]): void {
  doc.deleteIn(keyPath);
  for (let n = keyPath.length - 1; n > 0; n--) {
    const parent = doc.getIn(keyPath.slice(0, n), true);
    if (!isMap(parent) || parent.items.length > 0) return;
    doc.deleteIn(keyPath.slice(0, n));
  }
}

/** One edit of leo.yaml: parsed as a Document, edited, validated as the daemon would, then swapped in atomically. */
function rewrite(
  file: string,
  check: { home: string; chatEngineFor: ChatEngineFor | undefined },
  edit: (doc: Document) => void,
): { ok: true } | { ok: false; errors: string[] } {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const doc = parseDocument(text);
  if (doc.errors.length) return { ok: false, errors: doc.errors.map((e) => e.message) };
  edit(doc);
  const next = doc.toString();
  if (next === text) return { ok: true };
  const checked = parseConfig(next, { file, ...check });
  if (!checked.ok) return { ok: false, errors: checked.errors };
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, next, { mode: fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o600 });
  fs.renameSync(tmp, file);
  return { ok: true };
}
