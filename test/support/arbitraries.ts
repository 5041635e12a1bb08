// fast-check generators shared by the unit tests.
import fc from 'fast-check';

/**
 * One Unicode character (never half a surrogate pair), mostly printable ASCII. Built from code
 * points rather than fast-check's 'binary' unit, whose set-up costs most of a second per process.
 */
export const character = fc.oneof(
  { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 0xd7ff }), weight: 1 },
  { arbitrary: fc.integer({ min: 0xe000, max: 0x10ffff }), weight: 1 },
).map((cp) => String.fromCodePoint(cp));

/** Valid Unicode text (no lone surrogates), of the lengths asked for (in characters). */
export const text = (constraints: { minLength?: number; maxLength?: number } = {}) => fc.string({ unit: character, ...constraints });
