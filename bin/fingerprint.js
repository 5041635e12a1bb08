// The fingerprint of the compiled files a bundle was made from (see scripts/bundle.mjs): a hash of
// each file's path and content, in the order given. Shared by the bundler, which records it, and
// the launcher, which compares it with the files now in dist/.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Hash of the files `paths` (relative to `root`, '/'-separated); throws when one cannot be read. */
export function fingerprint(root, paths) {
  const hash = createHash('sha256');
  for (const path of paths) {
    const content = readFileSync(join(root, path));
    hash.update(`${path}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}
