// Makes a screenshot PNG small: an 8-bit RGB(A) PNG becomes a palette PNG of at most 256 colours.
// A page of a UI has few colours (text, lines and their anti-aliased edges); when there are more
// than 256, each rare colour takes the nearest of the 256 commonest. No image library needed.
import { readFileSync, writeFileSync } from 'node:fs';
import { deflateSync, inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** The pixels of an 8-bit RGB or RGBA PNG without interlacing, as {width, height, channels, pixels}. */
function decode(png) {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let off = 8;
  let header;
  const data = [];
  while (off < png.length) {
    const length = png.readUInt32BE(off);
    const type = png.toString('ascii', off + 4, off + 8);
    const body = png.subarray(off + 8, off + 8 + length);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') data.push(body);
    off += 12 + length;
  }
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const [depth, colour, , , interlace] = header.subarray(8);
  if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) return undefined;
  const channels = colour === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[out + x - channels] : 0;
      const b = y > 0 ? pixels[out - stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[out - stride + x - channels] : 0;
      let v = row[x];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[out + x] = v & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** Rewrites `file` as a palette PNG; answers the sizes before and after (unchanged if not smaller). */
export function toPalette(file) {
  const before = readFileSync(file);
  const image = decode(before);
  if (!image) return { before: before.length, after: before.length };
  const { width, height, channels, pixels } = image;
  const count = new Map();
  const colourAt = (i) => (channels === 4 ? pixels.readUInt32BE(i) : ((pixels[i] << 24) | (pixels[i + 1] << 16) | (pixels[i + 2] << 8) | 0xff) >>> 0);
  for (let i = 0; i < pixels.length; i += channels) {
    const c = colourAt(i);
    count.set(c, (count.get(c) ?? 0) + 1);
  }
  const palette = [...count.keys()].sort((x, y) => count.get(y) - count.get(x)).slice(0, 256);
  const index = new Map(palette.map((c, i) => [c, i]));
  const nearest = (c) => {
    let best = 0;
    let distance = Infinity;
    for (let i = 0; i < palette.length; i++) {
      const p = palette[i];
      const d = ((p >>> 24) - (c >>> 24)) ** 2 + (((p >>> 16) & 255) - ((c >>> 16) & 255)) ** 2 + (((p >>> 8) & 255) - ((c >>> 8) & 255)) ** 2 + ((p & 255) - (c & 255)) ** 2;
      if (d < distance) [best, distance] = [i, d];
    }
    index.set(c, best);
    return best;
  };
  // Each row: filter 0, then one index per pixel.
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const c = colourAt((y * width + x) * channels);
      rows[y * (width + 1) + 1 + x] = index.get(c) ?? nearest(c);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 3, 0, 0, 0], 8);
  const plte = Buffer.alloc(palette.length * 3);
  palette.forEach((c, i) => plte.set([c >>> 24, (c >>> 16) & 255, (c >>> 8) & 255], i * 3));
  const alpha = palette.map((c) => c & 255);
  const parts = [SIGNATURE, chunk('IHDR', header), chunk('PLTE', plte)];
  if (alpha.some((a) => a !== 255)) parts.push(chunk('tRNS', Buffer.from(alpha)));
  parts.push(chunk('IDAT', deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0)));
  const after = Buffer.concat(parts);
  if (after.length < before.length) writeFileSync(file, after);
  return { before: before.length, after: Math.min(after.length, before.length), colours: count.size };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  for (const file of process.argv.slice(2)) {
    const r = toPalette(file);
    console.log(`${file}: ${(r.before / 1024).toFixed(1)} kB -> ${(r.after / 1024).toFixed(1)} kB (${r.colours ?? '?'} colours)`);
  }
}
