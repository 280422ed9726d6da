import { describe, expect, it } from 'vitest';
import { SentencePieceTokenizer, TokenizerModelError } from '../../../core/tts/sentencepiece';
import { buildTokenizerModel, fixturePieces } from '../../fixtures/pocket/tokenizer-model';

// Fixture vocabulary (tests/fixtures/pocket/tokenizer-model.ts), ids in order:
// 0 <unk>, 1 <s>, 2 </s>, 3 ▁(−2), 4 ▁hello(−3), 5 ▁hell(−4), 6 o(−3.5), 7 ow(−2.5), 8 ▁world(−3), 9 ▁wor(−4),
// 10 ld(−4), 11 . 12 , 13 ! 14 ? 15 ; 16 : (all −2), then single letters a..z except o (−5 each), then <0x00>..<0xFF>.
const tok = SentencePieceTokenizer.fromModelBytes(buildTokenizerModel());
const id = (p: string) => tok.pieceToId(p)!;

describe('SentencePiece unigram tokenizer over a real tokenizer.model protobuf', () => {
  it('reads pieces, special ids and normaliser flags', () => {
    expect(tok.vocabSize).toBe(fixturePieces().length);
    expect([tok.unkId, tok.bosId, tok.eosId]).toEqual([0, 1, 2]);
    expect(tok.byteFallback).toBe(true);
    expect(tok.normalizer).toMatchObject({ name: 'nmt_nfkc', addDummyPrefix: true, removeExtraWhitespaces: true });
    expect(id('\u2581hello')).toBe(4);
  });

  it('"hello world" → [▁hello, ▁world] = [4, 8]', () => {
    // "▁hello▁world": ▁hello (−3) beats ▁hell+o (−7.5) and ▁+h+e+l+l+o (−27); ▁world (−3) beats ▁wor+ld (−8).
    expect(tok.encode('hello world')).toEqual([4, 8]);
    expect(tok.encode('  hello   world ')).toEqual([4, 8]); // extra whitespace removed, dummy prefix added
  });

  it('Viterbi is not greedy: "hellow" → [▁hell, ow] = [5, 7]', () => {
    // Greedy longest match would take ▁hello + w = −3 − 5 = −8; ▁hell + ow = −4 − 2.5 = −6.5 wins.
    expect(tok.encode('hellow')).toEqual([5, 7]);
  });

  it('sentence punctuation is its own piece: "hello." → [4, 11]', () => {
    expect(tok.encode('hello.')).toEqual([4, id('.')]);
  });

  it('byte fallback: "é" (UTF-8 C3 A9) → [▁, <0xC3>, <0xA9>] and decodes back', () => {
    const ids = tok.encode('é');
    expect(ids).toEqual([3, id('<0xC3>'), id('<0xA9>')]);
    expect(tok.decode(ids)).toBe('é');
  });

  it('without byte fallback a run of unknown characters is one <unk>', () => {
    const noBytes = SentencePieceTokenizer.fromModelBytes(buildTokenizerModel({ byteFallback: false }));
    // "▁ÉÉ": ▁ is a piece; É has no piece → both É merge into a single unk (id 0).
    expect(noBytes.encode('ÉÉ')).toEqual([3, 0]);
  });

  it('decodes ids back to text (▁ → space, dummy prefix dropped)', () => {
    expect(tok.decode(tok.encode('hello world, hellow!'))).toBe('hello world, hellow!');
  });

  it('rejects non-unigram and garbage models', () => {
    expect(() => SentencePieceTokenizer.fromModelBytes(buildTokenizerModel({ modelType: 2 }))).toThrow(TokenizerModelError);
    expect(() => SentencePieceTokenizer.fromModelBytes(new Uint8Array([0x0a, 0xff, 0xff, 0xff]))).toThrow(TokenizerModelError);
  });
});
