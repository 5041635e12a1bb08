// Facts about text that several layers check.

/** Half of a surrogate pair without its other half: not a character at all. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
