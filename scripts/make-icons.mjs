// Draws Sidetalk's icon (a violet speech bubble with a friendly face) as PNGs at the sizes the manifest lists.
// No image tools needed: pixels are computed here and written with zlib. Output is committed in public/icons/.
import { deflateSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
};

function png(size, pixel) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      // 4×4 supersampling for smooth edges at 16 px
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < 4; sy++)
        for (let sx = 0; sx < 4; sx++) {
          const [pr, pg, pb, pa] = pixel((x + (sx + 0.5) / 4) / size, (y + (sy + 0.5) / 4) / size);
          r += pr * pa;
          g += pg * pa;
          b += pb * pa;
          a += pa;
        }
      const o = y * (size * 4 + 1) + 1 + x * 4;
      raw[o] = a ? r / a : 0;
      raw[o + 1] = a ? g / a : 0;
      raw[o + 2] = a ? b / a : 0;
      raw[o + 3] = (a / 16) * 255;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function icon(u, v) {
  const inBubble = (u - 0.5) ** 2 / 0.42 ** 2 + (v - 0.46) ** 2 / 0.36 ** 2 <= 1;
  const inTail = v > 0.7 && v < 0.95 && u > 0.22 && u < 0.42 && u - 0.22 < (0.95 - v) * 0.9;
  if (!inBubble && !inTail) return [0, 0, 0, 0];
  const eye = (cx) => (u - cx) ** 2 + (v - 0.42) ** 2 < 0.055 ** 2;
  const smileR = Math.hypot(u - 0.5, v - 0.46);
  const smile = v > 0.5 && smileR > 0.14 && smileR < 0.19 && Math.abs(u - 0.5) < 0.13;
  if (eye(0.37) || eye(0.63) || smile) return [255, 255, 255, 1];
  const t = Math.min(1, Math.max(0, v));
  return [108 + 40 * (1 - t), 76 + 30 * (1 - t), 241, 1];
}

mkdirSync('public/icons', { recursive: true });
for (const size of [16, 32, 48, 128]) writeFileSync(`public/icons/${size}.png`, png(size, icon));
console.log('icons written to public/icons/');
