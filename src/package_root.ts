/**
 * The package's root folder (where package.json is), found from this module's own place: the same answer whether
 * the service runs from src/ through a TypeScript loader or from the compiled dist/server/src/. Files that are not
 * compiled (the built web pages, SQL migrations, .proto files) are read from here, so there is one copy of each.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src', 'package_root.ts'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package root above ${from}`);
  }
}

export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A path under the package root, e.g. fromRoot('proto') */
export const fromRoot = (...parts: string[]) => join(PACKAGE_ROOT, ...parts);
