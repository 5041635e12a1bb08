// Start-up images of bean trees (SQLite). Reading a domain of 60,000 beans row by row makes six
// strings per row and is most of a large domain's start; one JSON text of all of them parses in a
// third of the time, and less again when the few dozen type and collection names each bean repeats
// are written once and named by number. A clean stop leaves the image of each tree below (built by
// SQLite from the rows themselves, so it cannot differ from them), and triggers on `beans` drop it
// in the transaction of any change (migration 8). A start after a crash, or after any write, finds
// none and reads rows.
import type { PutBean } from './store.js';

/** The trees a start reads whole. */
export const IMAGED_TREES = ['config'] as const;

/**
 * Writes a tree's image when it has none: `{"words": [...], "beans": [...]}`, where `beans` runs
 * key, collection, name, ord, type, values for each bean in the order of `ord` (collection and type
 * as places in `words`; each bean's values spliced in as stored, not parsed again). The one
 * parameter is the tree.
 */
export const WRITE_IMAGE_SQL = `INSERT INTO images (tree, data)
  WITH tree AS (SELECT ? AS name),
  words AS (
    SELECT word, row_number() OVER (ORDER BY word) - 1 AS i
    FROM (SELECT type AS word FROM beans WHERE tree = (SELECT name FROM tree)
          UNION SELECT collection FROM beans WHERE tree = (SELECT name FROM tree) AND collection IS NOT NULL)
  ),
  parts AS (
    SELECT json_array(b.key, c.i, b.name, b.ord, t.i) AS head, b.data AS data, b.ord AS ord
    FROM beans b JOIN words t ON t.word = b.type LEFT JOIN words c ON c.word = b.collection
    WHERE b.tree = (SELECT name FROM tree)
  )
  SELECT (SELECT name FROM tree), '{"words":' || (SELECT json_group_array(word ORDER BY i) FROM words) || ',"beans":['
    || group_concat(substr(head, 2, length(head) - 2) || ',' || data, ',' ORDER BY ord) || ']}'
  FROM parts
  HAVING count(*) > 0 AND NOT EXISTS (SELECT 1 FROM images WHERE tree = (SELECT name FROM tree))`;

/** Fields per bean in an image's `beans`. */
const FIELDS = 6;

/**
 * Reads an image: what puts its beans, in order, or undefined when its text is not the shape
 * written above (then nothing was put).
 */
export function imageReader(text: string): ((put: PutBean) => void) | undefined {
  let image: unknown;
  try {
    image = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (image === null || typeof image !== 'object') return undefined;
  const { words, beans } = image as { words?: unknown; beans?: unknown };
  if (!Array.isArray(words) || !words.every((w) => typeof w === 'string') || !Array.isArray(beans) || beans.length % FIELDS !== 0) return undefined;
  const word = (i: unknown): boolean => typeof i === 'number' && i >= 0 && i < words.length && Number.isInteger(i);
  for (let i = 0; i < beans.length; i += FIELDS) {
    const [key, collection, name, ord, type, values] = [beans[i], beans[i + 1], beans[i + 2], beans[i + 3], beans[i + 4], beans[i + 5]];
    if (typeof key !== 'string' || typeof ord !== 'number' || !word(type)) return undefined;
    if ((collection !== null && !word(collection)) || (name !== null && typeof name !== 'string')) return undefined;
    if (values === null || typeof values !== 'object' || Array.isArray(values)) return undefined;
  }
  return (put) => {
    for (let i = 0; i < beans.length; i += FIELDS) {
      const collection = beans[i + 1] as number | null;
      put(beans[i] as string, collection === null ? null : (words[collection] as string), beans[i + 2] as string | null, beans[i + 3] as number, words[beans[i + 4] as number] as string, beans[i + 5] as Record<string, unknown>);
    }
  };
}
