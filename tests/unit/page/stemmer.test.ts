import { describe, expect, it } from 'vitest';
import { stemWord } from '../../../core/page/stemmer';
import { Bm25Index, searchTerms } from '../../../core/page/bm25';

// Expected stems are the worked examples of Porter's paper ("An algorithm for suffix stripping", 1980), taken through
// all five steps (a word the paper shows after one step can lose more in a later one: "relational" → "relate" in step
// 2 → "relat" in step 5).
const PAPER: Record<string, string> = {
  caresses: 'caress',
  ponies: 'poni',
  ties: 'ti',
  caress: 'caress',
  cats: 'cat',
  feed: 'feed',
  agreed: 'agre',
  plastered: 'plaster',
  bled: 'bled',
  motoring: 'motor',
  sing: 'sing',
  conflated: 'conflat',
  troubled: 'troubl',
  sized: 'size',
  hopping: 'hop',
  tanned: 'tan',
  falling: 'fall',
  hissing: 'hiss',
  fizzed: 'fizz',
  failing: 'fail',
  filing: 'file',
  happy: 'happi',
  sky: 'sky',
  relational: 'relat',
  conditional: 'condit',
  rational: 'ration',
  digitizer: 'digit',
  vietnamization: 'vietnam',
  predication: 'predic',
  operator: 'oper',
  feudalism: 'feudal',
  decisiveness: 'decis',
  hopefulness: 'hope',
  callousness: 'callous',
  formaliti: 'formal',
  triplicate: 'triplic',
  formative: 'form',
  formalize: 'formal',
  electriciti: 'electr',
  electrical: 'electr',
  hopeful: 'hope',
  goodness: 'good',
  revival: 'reviv',
  allowance: 'allow',
  inference: 'infer',
  airliner: 'airlin',
  gyroscopic: 'gyroscop',
  adjustable: 'adjust',
  defensible: 'defens',
  irritant: 'irrit',
  replacement: 'replac',
  adjustment: 'adjust',
  dependent: 'depend',
  adoption: 'adopt',
  homologous: 'homolog',
  communism: 'commun',
  activate: 'activ',
  angulariti: 'angular',
  effective: 'effect',
  bowdlerize: 'bowdler',
  probate: 'probat',
  rate: 'rate',
  cease: 'ceas',
  controll: 'control',
  roll: 'roll',
  generalizations: 'gener',
  oscillators: 'oscil',
};

describe('stemWord (Porter-style suffix stripping)', () => {
  it.each(Object.entries(PAPER))('%s → %s', (word, stem) => {
    expect(stemWord(word)).toBe(stem);
  });

  it('leaves short words, numbers and other scripts alone', () => {
    expect(stemWord('is')).toBe('is');
    expect(stemWord('2024')).toBe('2024');
    expect(stemWord('größe')).toBe('größe');
    expect(stemWord('東京')).toBe('東京');
  });

  it('brings the forms of one word together', () => {
    for (const group of [
      ['expires', 'expired', 'expiring', 'expiration'],
      ['connect', 'connected', 'connecting', 'connection', 'connections'],
      ['warranty', 'warranties'],
      ['install', 'installs', 'installed', 'installing'],
    ]) {
      expect(new Set(group.map(stemWord)).size, group.join(' ')).toBe(1);
    }
  });
});

describe('BM25 over stems', () => {
  it('finds a passage that uses another form of the question word', () => {
    const index = new Bm25Index([
      'The battery lasts ten hours on a full charge.',
      'Coverage expires after twenty four months from the date of purchase.',
      'The case is made of recycled aluminium.',
    ]);
    const scores = index.scores('When does my coverage expire?');
    expect(scores[1]).toBeGreaterThan(0);
    expect(scores[0]).toBe(0);
    expect(scores[2]).toBe(0);
  });

  it('indexes stems, not surface forms', () => {
    expect(searchTerms('Connections were connecting')).toEqual(['connect', 'connect']);
  });
});
