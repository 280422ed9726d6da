/**
 * Recognises the questions vision answers directly, from a finalised ASR transcript. Deliberately narrow: a miss
 * falls through to the LLM (which gets the scene as a tag), while a false hit would answer the wrong question.
 */
export type VisionIntent = 'describe' | 'count-people' | 'holding' | 'see-me';

const PATTERNS: Array<[VisionIntent, RegExp]> = [
  // Before 'describe': "what do you see in my hand" is about holding.
  [
    'holding',
    /\bwhat(?:'s| is| am i| do i have|'m i)? ?(?:i'm |i am )?(?:holding|carrying|got in my hands?|have in my hands?|in my hands?)\b/,
  ],
  ['holding', /\bwhat (?:is|'s) this (?:thing )?(?:i'm|i am) (?:holding|showing)/],
  ['holding', /\b(?:can you see|do you see|guess) what i(?:'m| am) holding\b/],
  ['count-people', /\bhow many (?:people|persons|humans|faces|of us)\b/],
  [
    'count-people',
    /\b(?:is|are) there (?:any ?one|any ?body|people|someone|somebody) (?:else )?(?:here|there|in the (?:room|picture|frame|camera))/,
  ],
  ['see-me', /\b(?:can|do) you see me\b/],
  ['describe', /\bwhat (?:do|can) you see\b/],
  ['describe', /\bwhat(?:'s| is| are) (?:in front of|around) (?:me|you)\b/],
  ['describe', /\bwhat(?:'s| is) (?:on|in) (?:the |your |my )?(?:camera|webcam|picture|frame)\b/],
  ['describe', /\b(?:describe|look at) (?:what you see|the scene|the room|my (?:room|desk|surroundings))\b/],
  ['describe', /\btake a look\b/],
];

export function matchVisionIntent(transcript: string): VisionIntent | null {
  const text = transcript
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .replace(/[^a-z' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  for (const [intent, pattern] of PATTERNS) if (pattern.test(text)) return intent;
  return null;
}
