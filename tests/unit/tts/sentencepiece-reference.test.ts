/**
 * Our SentencePiece tokenizer against the reference C++ library (compiled to WebAssembly, @agnai/sentencepiece-js)
 * over models the reference trainer made (tests/fixtures/sentencepiece/README.md): every string must give the same
 * ids, and the same ids the same text. How to rerun and rebuild: docs/tts.md, "Tokenizer: reference comparison".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import spm from '@agnai/sentencepiece-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PieceType, SentencePieceTokenizer } from '../../../core/tts/sentencepiece';
import { buildTokenizerModel, fixturePieces, type FixturePiece } from '../../fixtures/pocket/tokenizer-model';
import { variedStrings } from '../../fixtures/sentencepiece/varied-text';

const MODELS = [
  'unigram-nfkc',
  'unigram-identity',
  'unigram-identity-keep-spaces',
  'unigram-identity-suffix',
  'unigram-nfkc-unk-no-prefix',
] as const;
const modelPath = (name: string) => fileURLToPath(new URL(`../../fixtures/sentencepiece/${name}.model`, import.meta.url));

/** Edge cases named in issue 20 and docs/tts.md, plus runs long enough for float32 rounding to matter. */
function edgeCases(): string[] {
  const out = ['', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u200b', '\u0000', 'a\tb', 'a\nb', 'a\u00a0b', ' a ', '\ta\t'];
  out.push(
    'a\u200bb',
    'a\u200d\u200db',
    '\u00ad',
    'x\u0000y\u0001z\u007f',
    '\u3000全角\u3000',
    'ﬁ ① ½ ™ Ａ１',
    'e\u0301',
    '▁',
    'a▁',
  );
  out.push('\ufeffword', 'a\ufeff', '\u2581\u2581 x', '  \u2581x', '<s>', '</s>', '<unk>', '<0x41>');
  out.push('[pause]', 'a [pause] b', '<br><br>', 'https://example.com', ' [pause] ');
  for (const c of ['!', '.', '?', '-', '=', '*', '…', '—', ' ', '\t', 'é', '日', '😀'])
    for (const n of [2, 3, 7, 16, 31, 64, 100, 150, 257, 400]) out.push(c.repeat(n), 'word' + c.repeat(n) + 'word');
  return out;
}

/**
 * The binding returns C++ strings to JS in NUL-separated segments, each decoded by TextDecoder('utf8') when longer
 * than 16 bytes, which drops a leading U+FEFF from such a segment; the library itself keeps it.
 */
function asBindingReturns(text: string): string {
  const bytes = (segment: string) => new TextEncoder().encode(segment).length;
  return text
    .split('\u0000')
    .map((segment) => (bytes(segment) > 16 ? segment.replace(/^\ufeff/, '') : segment))
    .join('\u0000');
}

const STRINGS = [...edgeCases(), ...variedStrings(2, 3000)];

describe.each(MODELS)('SentencePiece %s: same ids as the reference C++ library', (name) => {
  const ours = SentencePieceTokenizer.fromModelBytes(new Uint8Array(readFileSync(modelPath(name))));
  let want: number[][] = [];
  let decoded: string[] = [];
  beforeAll(async () => {
    const reference = new spm.SentencePieceProcessor();
    await reference.load(modelPath(name));
    want = STRINGS.map((text) => reference.encodeIds(text));
    decoded = want.map((ids) => reference.decodeIds(ids));
  });

  it(`encodes ${STRINGS.length} varied strings with zero differences`, () => {
    const differences: { text: string; ours: number[]; reference: number[] }[] = [];
    STRINGS.forEach((text, i) => {
      const got = ours.encode(text);
      const ref = want[i]!;
      if (got.length !== ref.length || got.some((id, k) => id !== ref[k])) differences.push({ text, ours: got, reference: ref });
    });
    expect(want.flat().length).toBeGreaterThan(STRINGS.length * 5); // the reference really tokenised the strings
    expect({ count: differences.length, first: differences.slice(0, 5) }).toEqual({ count: 0, first: [] });
  });

  it('decodes the reference ids to the reference text', () => {
    const differences = STRINGS.map((text, i) => ({
      text,
      ours: asBindingReturns(ours.decode(want[i]!)),
      reference: decoded[i]!,
    }));
    const bad = differences.filter((d) => d.ours !== d.reference);
    expect({ count: bad.length, first: bad.slice(0, 5) }).toEqual({ count: 0, first: [] });
  });

  it('the comparison reaches byte fallback or <unk>, and the model normalises as its name says', () => {
    const types = new Set(want.flat().map((id) => ours.pieces[id]!.type));
    expect(types.has(ours.byteFallback ? PieceType.Byte : PieceType.Unknown)).toBe(true);
    expect(ours.normalizer.precompiledCharsmap.length > 0).toBe(name.includes('nfkc'));
  });
});

describe('the varied strings cover what the reference comparison is for', () => {
  it.each([
    ['tabs', /\t/],
    ['newlines', /\n/],
    ['no-break spaces', /\u00a0/],
    ['zero-width characters', /[\u200b-\u200d\ufeff\u2060]/],
    ['control characters', /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/],
    ['combining marks', /\p{M}/u],
    ['CJK', /\p{Script=Han}/u],
    ['emoji', /\p{Extended_Pictographic}/u],
    ['accents', /[éèïöüç]/],
    ['currency', /[$€£¥₹]\d/],
    ['dates', /\d{4}-\d{2}-\d{2}/],
    ['URLs', /https?:\/\//],
    ['long punctuation runs', /([!.?\-=*])\1{40}/],
  ])('%s', (_, pattern) => {
    expect(variedStrings(2, 3000).filter((s) => pattern.test(s)).length).toBeGreaterThan(10);
  });
});

describe('models built to the bit (written with protobufjs, encoded by the reference from a temporary file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spm-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bytePieces = fixturePieces().filter((p) => p.type === 6); // ids follow the pieces listed before them
  async function pair(name: string, pieces: FixturePiece[]) {
    const bytes = buildTokenizerModel({ pieces: [...fixturePieces().slice(0, 3), ...pieces, ...bytePieces] });
    writeFileSync(join(dir, name), bytes);
    const reference = new spm.SentencePieceProcessor();
    await reference.load(join(dir, name));
    return { reference, ours: SentencePieceTokenizer.fromModelBytes(bytes) };
  }

  it('an unknown character\'s candidate is rounded to float32 before the comparison: "cA" → [▁, cA]', async () => {
    // "cA" → "▁cA"; "A" has no piece. Scores: ▁ 0, c = 10 + 2^-20, cA = s = −16 − 2^-18 (the lowest normal score, so
    // the unknown score is U = s − 10). Path "▁ c <unk>" sums to −16 − 3·2^-20: above s in float64, but exactly
    // halfway between two float32 values, and rounding to even gives s itself, which is not better than "▁ cA" (s).
    // The reference rounds that candidate before comparing, so it keeps "cA"; comparing unrounded picks byte fallback.
    const s = -16 - 2 ** -18;
    expect(Math.fround(s)).toBe(s);
    const { reference, ours } = await pair('tie.model', [
      { piece: '\u2581', score: 0, type: 1 },
      { piece: 'c', score: 10 + 2 ** -20, type: 1 },
      { piece: 'cA', score: s, type: 1 },
    ]);
    expect(reference.encodeIds('cA')).toEqual([3, 5]);
    expect(ours.encode('cA')).toEqual([3, 5]);
  });

  it('the unknown score comes from normal pieces only; unused pieces never match; user-defined ones always do', async () => {
    // Ids: 3 ▁ (0), 4 b (+12), 5 Zb (−15, the lowest normal score: unknown = −25), 6 ab (unused, +20), 7 a (−1),
    // 8 [p] (user-defined, −100 in the file), 9.. bytes. "▁Zb": ▁ + <unk Z> + b = −25 + 12 = −13 beats ▁ + Zb = −15;
    // were [p]'s −100 the lowest score, the unknown would cost −110 and Zb would win.
    const { reference, ours } = await pair('kinds.model', [
      { piece: '\u2581', score: 0, type: 1 },
      { piece: 'b', score: 12, type: 1 },
      { piece: 'Zb', score: -15, type: 1 },
      { piece: 'ab', score: 20, type: 5 },
      { piece: 'a', score: -1, type: 1 },
      { piece: '[p]', score: -100, type: 4 },
    ]);
    const cases: [string, number[]][] = [
      ['Zb', [3, 9 + 0x5a, 4]],
      ['ab', [3, 7, 4]],
      ['a[p]b', [3, 7, 8, 4]],
    ];
    for (const [text, ids] of cases) {
      expect(reference.encodeIds(text)).toEqual(ids);
      expect(ours.encode(text)).toEqual(ids);
    }
  });
});
