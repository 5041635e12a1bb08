// A JSON body printed piece by piece (a search's results, a collection's items), so that an answer
// of many megabytes is never held whole: the HTTP adapter writes the pieces as the client takes
// them, lets other requests run between them, and stops when the client goes away.

/** The entity tag of a body printed piece by piece (a collection's: a digest of every item). */
export interface StreamTag {
  /** Steps, one per item, that take the items the pieces have not reached yet into the tag. */
  rest(): Generator<void, void, undefined>;
  /** The tag, once the pieces or `rest` have taken every item. */
  value(): string;
}

export class StreamedJson {
  /** Judges the tag against the request's conditions: true when the answer is 304 Not Modified (set by the API). */
  notModified?: (tag: string) => boolean;
  /**
   * Told by a caller that wanted a small body (a page) that this one is too large, with the
   * collection's item count when its first items showed it: the API remembers it for the same read.
   */
  refused?: (why: { items?: number }) => void;

  constructor(
    /** The body's text in the product's layout (see json-text.ts), an item or so at a time. */
    readonly pieces: Generator<string, void, undefined>,
    readonly options: {
      /** The body can still be refused after its first piece (a search whose filters are judged late): send it only whole. */
      whole?: boolean;
      tag?: StreamTag;
      /**
       * A collection's body: how many items it lists. Its pieces are then the items, one each (the
       * first with what comes before the list, the last piece closing it), so a reader can judge
       * the size of the whole from its first items.
       */
      items?: number;
    } = {},
  ) {}
}

/** Every piece, joined: the body as one text (what the pieces make must equal the unstreamed body). */
export function wholeText(body: StreamedJson): string {
  let out = '';
  for (const piece of body.pieces) out += piece;
  return out;
}
