import { deflateSync, inflateSync } from 'node:zlib';

/**
 * Shrinks a browser screenshot (8-bit RGB/RGBA PNG) to an indexed 256-colour PNG: user interface
 * pictures are mostly flat colours, so the most frequent exact colours plus a few averaged ones
 * keep text crisp at about half the size. No dependencies; used by scripts/screenshots.ts.
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface Image {
  readonly width: number;
  readonly height: number;
  /** RGB, 3 bytes per pixel. */
  readonly rgb: Uint8Array;
}

function decode(png: Buffer): Image {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let colorType = -1;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      colorType = data[9] ?? -1;
      if (depth !== 8 || (colorType !== 2 && colorType !== 6) || data[12] !== 0) throw new Error('only 8-bit RGB/RGBA non-interlaced PNGs are supported');
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    offset += 12 + length;
  }
  const channels = colorType === 6 ? 4 : 3;
  const stride = width * channels;
  const raw = inflateSync(Buffer.concat(idat));
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    const prev = out - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? (pixels[out + x - channels] ?? 0) : 0;
      const b = y > 0 ? (pixels[prev + x] ?? 0) : 0;
      const c = y > 0 && x >= channels ? (pixels[prev + x - channels] ?? 0) : 0;
      const value = line[x] ?? 0;
      let predicted: number;
      switch (filter) {
        case 0: predicted = 0; break;
        case 1: predicted = a; break;
        case 2: predicted = b; break;
        case 3: predicted = (a + b) >> 1; break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`bad PNG filter ${String(filter)}`);
      }
      pixels[out + x] = (value + predicted) & 0xff;
    }
  }
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, j = 0; i < pixels.length; i += channels, j += 3) {
    rgb[j] = pixels[i] ?? 0;
    rgb[j + 1] = pixels[i + 1] ?? 0;
    rgb[j + 2] = pixels[i + 2] ?? 0;
  }
  return { width, height, rgb };
}

function buildPalette(image: Image): number[] {
  const counts = new Map<number, number>();
  const { rgb } = image;
  for (let i = 0; i < rgb.length; i += 3) {
    const color = ((rgb[i] ?? 0) << 16) | ((rgb[i + 1] ?? 0) << 8) | (rgb[i + 2] ?? 0);
    counts.set(color, (counts.get(color) ?? 0) + 1);
  }
  const byCount = [...counts.entries()].sort((x, y) => y[1] - x[1]);
  if (byCount.length <= 256) return byCount.map(([color]) => color);
  const exact = byCount.slice(0, 192).map(([color]) => color);
  // The rest: averages of 4-bit-per-channel buckets, most populated first.
  const buckets = new Map<number, { r: number; g: number; b: number; n: number }>();
  for (const [color, n] of byCount.slice(192)) {
    const key = ((color >> 20) << 8) | (((color >> 12) & 0xf) << 4) | ((color >> 4) & 0xf);
    const bucket = buckets.get(key) ?? { r: 0, g: 0, b: 0, n: 0 };
    bucket.r += ((color >> 16) & 0xff) * n;
    bucket.g += ((color >> 8) & 0xff) * n;
    bucket.b += (color & 0xff) * n;
    bucket.n += n;
    buckets.set(key, bucket);
  }
  const averaged = [...buckets.values()]
    .sort((x, y) => y.n - x.n)
    .slice(0, 256 - exact.length)
    .map((k) => (Math.round(k.r / k.n) << 16) | (Math.round(k.g / k.n) << 8) | Math.round(k.b / k.n));
  return [...exact, ...averaged];
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** The screenshot as an indexed-colour PNG. */
export function toPalettePng(png: Buffer): Buffer {
  const image = decode(png);
  const palette = buildPalette(image);
  const index = new Map<number, number>();
  palette.forEach((color, i) => index.set(color, i));
  const nearest = (color: number): number => {
    const known = index.get(color);
    if (known !== undefined) return known;
    const r = (color >> 16) & 0xff;
    const g = (color >> 8) & 0xff;
    const b = color & 0xff;
    let best = 0;
    let bestDistance = Infinity;
    palette.forEach((p, i) => {
      const dr = ((p >> 16) & 0xff) - r;
      const dg = ((p >> 8) & 0xff) - g;
      const db = (p & 0xff) - b;
      const d = 3 * dr * dr + 4 * dg * dg + 2 * db * db;
      if (d < bestDistance) {
        bestDistance = d;
        best = i;
      }
    });
    index.set(color, best);
    return best;
  };
  const { width, height, rgb } = image;
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    rows[y * (width + 1)] = 0;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      rows[y * (width + 1) + 1 + x] = nearest(((rgb[i] ?? 0) << 16) | ((rgb[i + 1] ?? 0) << 8) | (rgb[i + 2] ?? 0));
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 3;
  const plte = Buffer.alloc(palette.length * 3);
  palette.forEach((color, i) => {
    plte[i * 3] = (color >> 16) & 0xff;
    plte[i * 3 + 1] = (color >> 8) & 0xff;
    plte[i * 3 + 2] = color & 0xff;
  });
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('PLTE', plte),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
