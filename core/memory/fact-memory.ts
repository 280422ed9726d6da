/**
 * Facts the user states about themselves ("my name is Ana", "I live in Porto", "I love jazz", "I'm flying to Rome
 * on Friday"), extracted by rules from the user's own words only — never from the assistant's replies or page text,
 * so nothing the model invents becomes a "fact". Bounded; one fact per (kind, key), latest wins. Relevance selection
 * picks the few facts a new turn needs for the prompt. Plain JSON in and out; the background stores it.
 */
import { z } from 'zod';
import { words } from '../text/transcript-quality';

export const FACT_KINDS = ['name', 'location', 'origin', 'work', 'preference', 'dislike', 'plan', 'relation', 'pet'] as const;
export type FactKind = (typeof FACT_KINDS)[number];

export interface Fact {
  kind: FactKind;
  /** Distinguishes facts of one kind: the relation ("sister"), the liked thing, the plan text. '' when one per kind. */
  key: string;
  value: string;
  /** Clock time (ms) when stated; used for recency and eviction. */
  at: number;
}

const factSchema = z.object({
  kind: z.enum(FACT_KINDS),
  key: z.string().max(60),
  value: z.string().max(120),
  at: z.number().finite(),
});
export const memorySchema = z.object({
  version: z.literal(1),
  facts: z.array(factSchema).max(500),
  /**
   * Counts the user's forgets: the engine echoes the epoch it was given, and a report from before a forget (an older
   * epoch, still in flight) is not stored (core/memory/memory-ledger.ts). Absent = 0.
   */
  epoch: z.number().int().nonnegative().optional(),
});
export type SerializedMemory = z.infer<typeof memorySchema>;

const MAX_VALUE_CHARS = 120;
/** Phrase end: punctuation or a conjunction that starts the next clause. */
const END = String.raw`(?=\s*(?:[.,!?;]|\band\b|\bbut\b|\bso\b|\bbecause\b|$))`;
const VALUE = String.raw`([\p{L}\p{N}'’ -]{2,60}?)`;

interface Rule {
  kind: FactKind;
  pattern: RegExp;
  /** Builds key and value from the match; return null to skip (e.g. "my name is not …"). */
  build: (m: RegExpExecArray) => { key: string; value: string } | null;
}

const NOT_A_NAME = new Set([
  'not',
  'sorry',
  'just',
  'going',
  'here',
  'fine',
  'good',
  'tired',
  'back',
  'done',
  'sure',
  'trying',
  'looking',
  'a',
  'the',
  'so',
  'very',
  'really',
  'still',
]);
const RELATIONS =
  'wife|husband|partner|girlfriend|boyfriend|son|daughter|mother|mom|mum|father|dad|sister|brother|friend|boss|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin';

/** Time words that trail a value but are not part of it ("I live in Lisbon now"). */
const TRAILING_TIME_WORDS = /\s+(?:now|these days|at the moment|currently|right now|too|as well|anymore)$/i;

function clean(s: string): string {
  return s.trim().replace(/\s+/g, ' ').replace(TRAILING_TIME_WORDS, '').slice(0, MAX_VALUE_CHARS);
}
function cap(s: string): string {
  return s.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}

const RULES: Rule[] = [
  {
    kind: 'name',
    pattern: new RegExp(
      String.raw`\b(?:my name is|my name's|call me|i am called|i'm called)\s+([\p{L}'’-]{2,30}(?:\s+[\p{L}'’-]{2,30})?)` + END,
      'iu',
    ),
    build: (m) => (NOT_A_NAME.has((m[1] ?? '').split(' ')[0]!.toLowerCase()) ? null : { key: '', value: cap(clean(m[1] ?? '')) }),
  },
  {
    kind: 'location',
    pattern: new RegExp(String.raw`\bi (?:live|am living|'m living|stay) in\s+` + VALUE + END, 'iu'),
    build: (m) => ({ key: '', value: cap(clean(m[1] ?? '')) }),
  },
  {
    kind: 'origin',
    pattern: new RegExp(String.raw`\bi(?: am|'m| come) from\s+` + VALUE + END, 'iu'),
    build: (m) => ({ key: '', value: cap(clean(m[1] ?? '')) }),
  },
  {
    kind: 'work',
    pattern: new RegExp(
      String.raw`\bi (?:work (?:at|for|as)|am an?|'m an?) ((?:software |data |school |high school )?(?:engineer|developer|teacher|nurse|doctor|designer|student|writer|lawyer|manager|chef|scientist|researcher|[\p{L}]+ (?:at|for) [\p{L}' -]{2,40}?)|[\p{L}' -]{2,40}?)` +
        END,
      'iu',
    ),
    build: (m) => {
      const v = clean(m[1] ?? '');
      if (/\b(?:bit|little|lot|fan|big)\b/i.test(v)) return null; // "I'm a bit tired", "I'm a big fan of"
      return /^i work/i.test(m[0]) ||
        /\b(?:engineer|developer|teacher|nurse|doctor|designer|student|writer|lawyer|manager|chef|scientist|researcher)\b/i.test(
          v,
        )
        ? { key: '', value: v }
        : null;
    },
  },
  {
    kind: 'preference',
    pattern: new RegExp(String.raw`\bmy fav(?:ou?rite) ([\p{L} ]{2,30}?) is\s+` + VALUE + END, 'iu'),
    build: (m) => ({ key: clean(m[1] ?? '').toLowerCase(), value: clean(m[2] ?? '') }),
  },
  {
    kind: 'preference',
    pattern: new RegExp(String.raw`\bi (?:really )?(?:love|like|enjoy|prefer|adore)\s+` + VALUE + END, 'iu'),
    build: (m) => {
      const v = clean(m[1] ?? '');
      if (/^(?:to know|it|that|this|you|the idea)\b/i.test(v)) return null; // "I'd like to know", "I like that"
      return { key: v.toLowerCase(), value: v };
    },
  },
  {
    kind: 'dislike',
    pattern: new RegExp(String.raw`\bi (?:really )?(?:hate|dislike|can't stand|don't like)\s+` + VALUE + END, 'iu'),
    build: (m) => {
      const v = clean(m[1] ?? '');
      if (/^(?:it|that|this|you)\b/i.test(v)) return null;
      return { key: v.toLowerCase(), value: v };
    },
  },
  {
    kind: 'plan',
    pattern: new RegExp(
      String.raw`\bi(?:'m| am) (?:going|flying|travell?ing|driving|heading|moving) to\s+` +
        String.raw`([\p{L}\p{N}'’ -]{2,80}?)` +
        END,
      'iu',
    ),
    build: (m) => ({ key: '', value: clean(m[0].replace(/^i(?:'m| am)\s+/i, '')) }),
  },
  {
    kind: 'plan',
    pattern: new RegExp(
      String.raw`\bi (?:have|'ve got|have got) an? (interview|exam|meeting|appointment|flight|trip|date|party|wedding)\b([\p{L}\p{N}'’ -]{0,60}?)` +
        END,
      'iu',
    ),
    build: (m) => ({ key: (m[1] ?? '').toLowerCase(), value: clean(`${m[1]}${m[2] ?? ''}`) }),
  },
  {
    kind: 'relation',
    pattern: new RegExp(String.raw`\bmy (${RELATIONS})(?:'s name is| is (?:called|named))\s+([\p{L}'’-]{2,30})` + END, 'iu'),
    build: (m) => ({ key: (m[1] ?? '').toLowerCase(), value: cap(clean(m[2] ?? '')) }),
  },
  {
    kind: 'pet',
    pattern: new RegExp(
      String.raw`\bmy (dog|cat|puppy|kitten|rabbit|parrot|hamster|horse)(?:'s name is| is (?:called|named))\s+([\p{L}'’-]{2,30})` +
        END,
      'iu',
    ),
    build: (m) => ({ key: (m[1] ?? '').toLowerCase(), value: cap(clean(m[2] ?? '')) }),
  },
  {
    kind: 'pet',
    pattern: new RegExp(
      String.raw`\bi have an? (dog|cat|puppy|kitten|rabbit|parrot|hamster|horse) (?:called|named)\s+([\p{L}'’-]{2,30})` + END,
      'iu',
    ),
    build: (m) => ({ key: (m[1] ?? '').toLowerCase(), value: cap(clean(m[2] ?? '')) }),
  },
];

/** Words in a new turn that make a fact kind relevant even without overlapping the fact's own words. */
const KIND_CUES: Record<FactKind, string[]> = {
  name: ['name', 'who', 'me', 'called'],
  location: ['live', 'where', 'weather', 'near', 'here', 'local', 'city', 'home', 'nearby', 'time'],
  origin: ['from', 'where', 'grew', 'hometown', 'country'],
  work: ['work', 'job', 'office', 'career', 'boss', 'colleague', 'do'],
  preference: ['like', 'love', 'favorite', 'favourite', 'recommend', 'suggest', 'enjoy', 'prefer'],
  dislike: ['like', 'recommend', 'suggest', 'hate', 'avoid'],
  plan: [
    'trip',
    'plan',
    'tomorrow',
    'weekend',
    'pack',
    'flight',
    'interview',
    'going',
    'travel',
    'prepare',
    'weather',
    'meeting',
    'exam',
  ],
  relation: [
    'wife',
    'husband',
    'partner',
    'son',
    'daughter',
    'mother',
    'mom',
    'mum',
    'father',
    'dad',
    'sister',
    'brother',
    'friend',
    'gift',
    'birthday',
    'family',
  ],
  pet: ['dog', 'cat', 'pet', 'walk', 'vet', 'puppy', 'kitten', 'food'],
};
const STOP = new Set([
  'the',
  'a',
  'an',
  'to',
  'of',
  'in',
  'on',
  'and',
  'is',
  'i',
  'my',
  'me',
  'you',
  'it',
  'what',
  'do',
  'for',
  'with',
  'at',
]);

export class FactMemory {
  private facts: Fact[] = [];
  /** The store's forget count this memory was loaded at (memorySchema.epoch). */
  private epoch = 0;
  /**
   * The user's memory switch (Settings → Memory). Off: nothing new is learned and nothing kept reaches a prompt; what
   * is kept stays listed until the user forgets it.
   */
  enabled = true;

  constructor(private readonly capacity = 32) {}

  /** Extracts facts from one user turn; returns the facts that were added or updated (none while switched off). */
  observe(userText: string, at: number): Fact[] {
    if (!this.enabled) return [];
    const found: Fact[] = [];
    for (const rule of RULES) {
      const m = rule.pattern.exec(userText);
      if (!m) continue;
      const built = rule.build(m);
      if (!built || built.value.length < 2) continue;
      // "I love jazz" after "I hate jazz": the newer statement replaces the opposite kind too.
      const opposite = rule.kind === 'preference' ? 'dislike' : rule.kind === 'dislike' ? 'preference' : null;
      this.facts = this.facts.filter(
        (f) =>
          !((f.kind === rule.kind || f.kind === opposite) && f.key === built.key && (f.kind === rule.kind || built.key !== '')),
      );
      const fact: Fact = { kind: rule.kind, key: built.key, value: built.value, at };
      this.facts.push(fact);
      found.push(fact);
    }
    while (this.facts.length > this.capacity) {
      let oldest = 0;
      for (let i = 1; i < this.facts.length; i++) if (this.facts[i]!.at < this.facts[oldest]!.at) oldest = i;
      this.facts.splice(oldest, 1);
    }
    return found;
  }

  all(): readonly Fact[] {
    return this.facts;
  }

  /**
   * The facts a new turn needs: ones whose words or kind cues appear in it, ranked by overlap then recency; a
   * name is always useful in small doses, so it is included whenever anything else is, or when asked. None while off.
   */
  select(query: string, limit = 4): Fact[] {
    if (!this.enabled) return [];
    const q = new Set(words(query).filter((w) => !STOP.has(w)));
    const scored: { fact: Fact; score: number }[] = [];
    for (const fact of this.facts) {
      const own = words(`${fact.key} ${fact.value}`).filter((w) => !STOP.has(w));
      let score = own.filter((w) => q.has(w) || q.has(w.replace(/s$/, ''))).length * 2;
      score += KIND_CUES[fact.kind].filter((c) => q.has(c)).length;
      if (score > 0) scored.push({ fact, score });
    }
    scored.sort((a, b) => b.score - a.score || b.fact.at - a.fact.at);
    return scored.slice(0, limit).map((s) => s.fact);
  }

  /** One line per fact for the system prompt ("The user's name is Ana."). */
  static describe(fact: Fact): string {
    switch (fact.kind) {
      case 'name':
        return `The user's name is ${fact.value}.`;
      case 'location':
        return `The user lives in ${fact.value}.`;
      case 'origin':
        return `The user is from ${fact.value}.`;
      case 'work':
        return `The user works ${/^(?:at|for|as)\b/i.test(fact.value) ? '' : 'as '}${fact.value}.`
          .replace('works as a ', 'is a ')
          .replace('works as an ', 'is an ');
      case 'preference':
        return fact.key && fact.key !== fact.value.toLowerCase()
          ? `The user's favourite ${fact.key} is ${fact.value}.`
          : `The user likes ${fact.value}.`;
      case 'dislike':
        return `The user dislikes ${fact.value}.`;
      case 'plan':
        return `The user's plan: ${fact.value}.`;
      case 'relation':
        return `The user's ${fact.key} is called ${fact.value}.`;
      case 'pet':
        return `The user's ${fact.key} is called ${fact.value}.`;
    }
  }

  toJSON(): SerializedMemory {
    return { version: 1, facts: this.facts.map((f) => ({ ...f })), ...(this.epoch ? { epoch: this.epoch } : {}) };
  }

  /** Replaces what is remembered with stored data (the engine keeps this same object); malformed data → empty. */
  load(data: unknown): void {
    const loaded = FactMemory.fromJSON(data, this.capacity);
    this.facts = loaded.facts;
    this.epoch = loaded.epoch;
  }

  /** What is remembered, in the order it was stated. */
  list(): readonly Fact[] {
    return this.facts;
  }

  /** Restores from storage; anything malformed is dropped rather than trusted. */
  static fromJSON(data: unknown, capacity = 32): FactMemory {
    const memory = new FactMemory(capacity);
    const parsed = memorySchema.safeParse(data);
    if (parsed.success) {
      memory.facts = parsed.data.facts.slice(-capacity);
      memory.epoch = parsed.data.epoch ?? 0;
    }
    return memory;
  }
}
